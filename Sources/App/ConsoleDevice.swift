import BluetoothCore
import Console
import Drivers
import Platform

/// The diagnostics shell: a serial console (or stdin/stdout) read without
/// blocking the event loop, cut into lines, parsed into commands that wait
/// in `pollCommand`.
final class ConsoleDevice: ConsolePort {
    private let port: SerialConsole
    private var reader = ConsoleLineReader()
    private var commands = FIFO<ConsoleCommand>()

    /// `device` is a tty path, or "-" for stdin/stdout.
    init(device: String) throws(SystemError) {
        port = try SerialConsole(device: device)
    }

    func say(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { port.say(String(line)) }
    }

    func pollCommand() -> ConsoleCommand? {
        while commands.isEmpty, let bytes = port.pollInput() { received(bytes) }
        return commands.popFirst()
    }

    func addDescriptors(to set: inout PollSet) { port.addDescriptors(to: &set) }
    func handle(_ readiness: Readiness, on fd: Int32, now: Instant) { port.handle(readiness, on: fd, now: now) }
    var nextDeadline: Instant? { port.nextDeadline }
    func handleTimeout(now: Instant) { port.handleTimeout(now: now) }

    private func received(_ bytes: [UInt8]) {
        for input in reader.receive(bytes) {
            switch input {
            case .lineTooLong:
                say("line too long; discarded")
            case .line(let line):
                let command = ConsoleCommand(line: line)
                switch command {
                case .empty: break
                case .invalid(let message): say(message)
                case .help: say(ConsoleCommand.usage)
                default: commands.append(command)
                }
            }
        }
    }
}
