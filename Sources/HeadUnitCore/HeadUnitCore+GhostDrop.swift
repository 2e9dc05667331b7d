import BluetoothCore

/// The driver's answers to a GhostDrop transfer: the console's
/// `confirm`/`cancel`, the confirm key and Escape.
extension HeadUnitCore {
    /// The code a transfer shows, waiting for the driver.
    public var transferCodeShown: String? { ghostDrop.codeShown }

    /// "Codes match" (true) or "Cancel" (false) to the code shown; false
    /// when no code waits.
    @discardableResult
    public func answerTransferCode(matches: Bool, now: Instant) -> Bool {
        clock.now = now
        let answered = ghostDrop.answerCode(matches: matches, now: now)
        pump()
        return answered
    }

    /// "Cancel": the code shown does not match, or the transfer running
    /// stops; false when there is neither.
    @discardableResult
    public func cancelTransfer(now: Instant) -> Bool {
        clock.now = now
        let cancelled = ghostDrop.codeShown != nil ? ghostDrop.answerCode(matches: false, now: now) : ghostDrop.cancelTransfer(now: now)
        pump()
        return cancelled
    }

    /// The state partition's free bytes, as the shell measured them after
    /// a file of GhostDrop's was begun, kept or deleted: an offered file
    /// must fit with room to spare (`GhostDropFileKind.decide`).
    public func stateFreeBytes(_ bytes: Int64?) {
        ghostDrop.stateFreeBytes = bytes
    }
}
