import CLinux

/// How the kernel schedules the firmware's one thread.
public enum Scheduling {
    /// Runs the calling thread under SCHED_BATCH: when what it waits for
    /// arrives, it no longer preempts the task that delivered it but runs
    /// once that task sleeps or its time slice ends (about a millisecond
    /// here). Whoever delivers the controller's packets (the kernel's HCI
    /// receive work on the car, the simulator over loopback TCP in the
    /// tests) then hands over everything it has in one go, and the head unit
    /// reads it in one wake-up instead of being woken, and switched to, for
    /// each packet: in the side by side on one CPU, 6.8 wake-ups and reads
    /// per notification became 2.2 (BENCHMARKS.md). Nothing else changes:
    /// the thread keeps its nice value and its share of the CPU, and a
    /// wake-up on an idle CPU runs at once. False when the kernel refused.
    @discardableResult
    public static func batch() -> Bool {
        nn_batch_scheduling() == 0
    }
}
