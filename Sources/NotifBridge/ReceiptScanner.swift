/// Finds the `receiptID` of an envelope frame without keeping the frame:
/// a frame over the receiver's bound is not stored, yet its sender waits
/// for a receipt (and sends nothing else meanwhile), and JSONEncoder writes
/// `receiptID` after the long `data` member. Fed the frame's bytes as they
/// come, it follows the top-level object's strings (escapes included) and
/// keeps only the key being read and a `receiptID` string value, each at
/// most 64 bytes.
struct ReceiptScanner {
    private static let receiptKey: [UInt8] = Array("receiptID".utf8)
    private static let maxText = 64

    private var depth = 0
    private var inString = false
    private var escaped = false
    /// At depth 1, before a member's colon.
    private var expectingKey = false
    /// The string being read matters (a key, or the receiptID's value).
    private var capturing = false
    private var text: [UInt8] = []
    private var key: [UInt8] = []
    private(set) var receiptText: [UInt8]?

    mutating func reset() { self = ReceiptScanner() }

    mutating func take(_ bytes: ArraySlice<UInt8>) {
        for b in bytes { take(b) }
    }

    private mutating func take(_ b: UInt8) {
        if inString {
            if escaped {
                escaped = false
                capturing = false // no key or UUID this scanner wants has an escape
            } else if b == UInt8(ascii: "\\") {
                escaped = true
            } else if b == UInt8(ascii: "\"") {
                inString = false
                guard capturing else { return }
                if expectingKey {
                    key = text
                } else if key == ReceiptScanner.receiptKey {
                    receiptText = text
                }
            } else if capturing {
                if text.count < ReceiptScanner.maxText { text.append(b) } else { capturing = false }
            }
            return
        }
        switch b {
        case UInt8(ascii: "\""):
            inString = true
            capturing = depth == 1 && (expectingKey || key == ReceiptScanner.receiptKey)
            if capturing { text.removeAll(keepingCapacity: true) }
            if depth == 1 && expectingKey { key = [] }
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
            if depth == 1 { expectingKey = b == UInt8(ascii: "{") }
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
        case UInt8(ascii: ":") where depth == 1:
            expectingKey = false
        case UInt8(ascii: ",") where depth == 1:
            expectingKey = true
            key = []
        default:
            break
        }
    }

    /// The receipt named at depth 1, if it is a UUID.
    var receipt: ReceiptID? {
        guard let receiptText, let uuid = uuidFromText(String(decoding: receiptText, as: UTF8.self)) else { return nil }
        return ReceiptID(uuid)
    }
}
