import BluetoothCore

/// The core's "now": the time its latest input came with. The core never
/// reads a clock. Each input sets this before anything runs, and the
/// completions of GATT and HCI procedures, which run inside an input, read
/// it, so every layer sees the time the shell passed in.
final class CoreClock {
    var now: Instant

    init(_ now: Instant) {
        self.now = now
    }
}
