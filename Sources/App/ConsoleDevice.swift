import BluetoothCore
import Console
import Drivers
import Platform

/// The diagnostics shell: a serial console (or stdin/stdout) read without
/// blocking the event loop, cut into lines, parsed into commands.
final class ConsoleDevice {
    private let port: SerialConsole
    private var reader = ConsoleLineReader()
    var onCommand: ((ConsoleCommand) -> Void)?

    /// `device` is a tty path, or "-" for stdin/stdout.
    init(device: String, loop: EventLoop) throws(SystemError) {
        port = try SerialConsole(device: device, loop: loop)
        port.onInput = { [unowned(unsafe) self] bytes in self.received(bytes) }
    }

    func say(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { port.say(String(line)) }
    }

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
                default: onCommand?(command)
                }
            }
        }
    }
}
