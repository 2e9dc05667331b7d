/// Cuts console input into lines. Bytes come in whatever pieces the tty
/// gives; a partial line waits for its end. CR, LF and CRLF all end a line
/// (terminals send CR for Enter). Backspace and DEL remove the last
/// character for terminals in raw mode; other control bytes (the escape
/// sequences of arrow keys) are dropped. A line longer than `maximumLength`
/// is reported once and discarded up to its end.
public struct ConsoleLineReader {
    public enum Input: Equatable {
        case line(String)
        case lineTooLong
    }

    public let maximumLength: Int
    private var buffer: [UInt8] = []
    private var discarding = false
    private var lastWasCR = false
    /// Inside an escape sequence (ESC [ ... final byte).
    private var escape: EscapeState = .none

    private enum EscapeState { case none, started, csi }

    public init(maximumLength: Int = 256) { self.maximumLength = maximumLength }

    public mutating func receive(_ bytes: [UInt8]) -> [Input] {
        var out: [Input] = []
        for byte in bytes {
            let afterCR = lastWasCR
            lastWasCR = byte == 0x0D
            if byte == 0x0D || byte == 0x0A {
                // The LF of a CRLF pair ends nothing more.
                if byte == 0x0A && afterCR { continue }
                escape = .none
                if discarding {
                    discarding = false
                } else {
                    out.append(.line(String(decoding: buffer, as: UTF8.self)))
                }
                buffer.removeAll(keepingCapacity: true)
                continue
            }
            switch escape {
            case .started:
                escape = byte == 0x5B ? .csi : .none // ESC [ starts a control sequence
                continue
            case .csi:
                if byte >= 0x40 && byte <= 0x7E { escape = .none }
                continue
            case .none:
                break
            }
            if byte == 0x1B {
                escape = .started
            } else if byte == 0x08 || byte == 0x7F {
                // Remove one character: a UTF-8 lead byte and its continuations.
                while let last = buffer.popLast(), last & 0xC0 == 0x80 {}
            } else if byte < 0x20 && byte != 0x09 {
                continue
            } else if discarding {
                continue
            } else if buffer.count < maximumLength {
                buffer.append(byte)
            } else {
                discarding = true
                buffer.removeAll(keepingCapacity: true)
                out.append(.lineTooLong)
            }
        }
        return out
    }
}
