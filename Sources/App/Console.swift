import BluetoothCore
import CLinux
import Platform

/// The diagnostics shell: lines in from a tty or stdin, answers out. Input
/// is read without blocking from the event loop; a partial line waits for
/// its newline; an over-long line is discarded with a message.
final class Console {
    private let inputFD: Int32
    private let output: LineFile
    private var buffer: [UInt8] = []
    private var watch: EventLoop.WatchID?
    private let loop: EventLoop
    var onCommand: ((ConsoleCommand) -> Void)?

    static let maxLine = 256

    /// `device` is a tty path, or "-" for stdin/stdout.
    init(device: String, loop: EventLoop) throws(SystemError) {
        self.loop = loop
        if device == "-" {
            inputFD = 0
            output = try LineFile(path: "-")
        } else {
            inputFD = nn_open(device, O_RDWR | O_NOCTTY | O_CLOEXEC, 0)
            guard inputFD >= 0 else { throw SystemError("open console \(device)") }
            output = try LineFile(path: device)
        }
        try FileDescriptor.setNonBlocking(inputFD)
        watch = loop.watch(inputFD) { [unowned self] readiness in self.readable(readiness) }
    }

    func say(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { output.write(String(line)) }
    }

    private func readable(_ readiness: EventLoop.Readiness) {
        while true {
            let chunk: [UInt8]?
            do { chunk = try FileDescriptor.read(inputFD, max: 512) } catch {
                Log.warning("console", "\(error); console closed")
                stop()
                return
            }
            guard let bytes = chunk else { return }
            if bytes.isEmpty {
                Log.info("console", "console input closed")
                stop()
                return
            }
            for byte in bytes {
                if byte == 0x0A || byte == 0x0D {
                    if !buffer.isEmpty || byte == 0x0A { execute(buffer) }
                    buffer.removeAll(keepingCapacity: true)
                } else if buffer.count < Console.maxLine {
                    buffer.append(byte)
                } else if buffer.count == Console.maxLine {
                    say("line too long; discarded")
                    buffer.append(0) // marks the line as discarded until its newline
                }
            }
        }
    }

    private func execute(_ bytes: [UInt8]) {
        guard bytes.count <= Console.maxLine else { return }
        let line = String(decoding: bytes, as: UTF8.self)
        let command = ConsoleCommand(line: line)
        switch command {
        case .empty: return
        case .invalid(let message): say(message)
        case .help: say(ConsoleCommand.usage)
        default: onCommand?(command)
        }
    }

    private func stop() {
        if let w = watch { loop.unwatch(w) }
        watch = nil
    }
}
