import BluetoothCore

/// What the core has for the shell besides packets, in the order it
/// happened: event-log events, state-file writes and console lines, each
/// drained by its `poll*`.
struct CoreOutbox {
    var events = FIFO<CoreEvent>()
    var writes = FIFO<StateWrite>()
    var consoleLines = FIFO<String>()
}
