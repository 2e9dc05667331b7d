import BluetoothCore
import CLinux

/// Log lines on stderr: monotonic seconds, level, subsystem, message.
public enum StandardErrorLog {
    public static func write(_ level: LogLevel, _ subsystem: StaticString, _ message: String) {
        let micros = Clock.monotonicMicroseconds()
        let seconds = micros / 1_000_000
        let millis = (micros / 1000) % 1000
        var ms = "\(millis)"
        while ms.count < 3 { ms = "0" + ms }
        line("\(seconds).\(ms) \(level.name) \(subsystem): \(message)")
    }

    public static func line(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { CLinux.write(2, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            offset += n
        }
    }
}

/// Ends the process with a status, flushing stdout first.
public func exitProcess(_ status: Int32) -> Never {
    fflush(nil)
    exit(status)
}
