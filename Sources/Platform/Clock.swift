import BluetoothCore
import CLinux

/// The clocks the platform reads on behalf of the sans-I/O layers.
public enum Clock {
    /// Monotonic time: never jumps, so timers survive the wall clock being set.
    public static func now() -> Instant {
        Instant(milliseconds: nn_monotonic_microseconds() / 1000)
    }

    public static func monotonicMicroseconds() -> Int64 { nn_monotonic_microseconds() }

    /// CPU time the calling thread has used: a benchmark's cost even when other programs share the cores.
    public static func threadCPUNanoseconds() -> Int64 { nn_thread_cpu_nanoseconds() }

    /// Wall-clock time since 1970, for btsnoop timestamps and the status-bar clock.
    public static func unixMicroseconds() -> Int64 { nn_realtime_microseconds() }
}
