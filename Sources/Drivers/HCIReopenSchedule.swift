import BluetoothCore

/// When the driver tries its transport again after a failed open or a loss.
///
/// A transport that failed (a UART unplugged, a simulator gone) comes back
/// when someone acts: tried after 0.25 s, then doubling to at most 5 s.
/// A controller the kernel is still bringing up is another case: on a Pi,
/// hci_uart registers hci0 only once the chip has answered (until then
/// binding answers ENODEV) and keeps it in its setup while btbcm downloads
/// the patch RAM (EBUSY); a UART the driver has just attached itself is in
/// the kernel's setup for a moment too (EBUSY). That one is tried every
/// 100 ms for up to 15 s, so the head unit can start beside the bring-up
/// (rcS does not wait for hci0) and still takes the controller over within
/// 0.1 s of the setup's end, where the doubling back-off would have added
/// up to a second.
struct HCIReopenSchedule {
    static let firstDelayMilliseconds: Int64 = 250
    static let maxDelayMilliseconds: Int64 = 5000
    static let setupPollMilliseconds: Int64 = 100
    static let setupWaitMilliseconds: Int64 = 15_000

    private var delay = firstDelayMilliseconds
    /// End of the fast polling, from the first "still coming" failure on.
    private var setupWaitEnds: Instant?

    /// The transport opened: the next failure starts from the beginning.
    mutating func opened() {
        delay = Self.firstDelayMilliseconds
        setupWaitEnds = nil
    }

    /// When to try again after a failure at `now`. `stillComing`: the
    /// failure said the controller is not registered yet or still in its
    /// setup, which ends by itself.
    mutating func next(after now: Instant, stillComing: Bool) -> Instant {
        if stillComing {
            let ends = setupWaitEnds ?? now.adding(milliseconds: Self.setupWaitMilliseconds)
            setupWaitEnds = ends
            if now < ends { return now.adding(milliseconds: Self.setupPollMilliseconds) }
        }
        let at = now.adding(milliseconds: delay)
        delay = min(delay * 2, Self.maxDelayMilliseconds)
        return at
    }
}
