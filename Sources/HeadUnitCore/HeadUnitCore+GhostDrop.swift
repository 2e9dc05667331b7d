import BluetoothCore
import ScreenValues

/// The driver's answers to a GhostDrop transfer: the console's
/// `confirm`/`cancel`, the confirm key and Escape (the screen's "Codes
/// match" / "Cancel" are `perform(_:now:)`'s).
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

    /// How the shell handed on the file just received (`.installing`,
    /// `.installed`, `.refused(reason)`, or `.received` when nothing takes
    /// it further): the band shows it for a few seconds from `now`.
    public func transferHandedOn(_ status: TransferStatus, now: Instant) {
        guard let shown = ghostDrop.band, shown.session == nil, shown.band.status == .received else { return }
        ghostDrop.band = .outcome(shown.band.filename, status, now: now)
    }

    /// The transfer's band at `now` (nil: none, or its outcome has gone).
    func transferBand(at now: Instant) -> TransferBand? { ghostDrop.band?.shown(at: now) }

    /// Milliseconds until the band's outcome leaves the screen, if one shows.
    func millisecondsToTransferBandChange(at now: Instant) -> Int64? {
        guard let until = ghostDrop.band?.until, until > now else { return nil }
        return until.millisecondsSince(now)
    }
}
