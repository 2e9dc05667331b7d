import BluetoothCore

/// The two marker values of a frame: one ATT value of exactly these bytes
/// each. A frame carries no length, sequence number or checksum.
public enum FrameToken {
    public static let start: [UInt8] = Array("--START--".utf8)
    public static let end: [UInt8] = Array("--END--".utf8)
}

/// What one value did to a frame being assembled.
public enum FrameStep: Equatable {
    /// Taken into the frame (START, or content while assembling).
    case taken
    /// END of a frame: here it is.
    case frame([UInt8])
    /// END of a frame that outgrew the capacity: its bytes were counted,
    /// not kept; the receipt it names, if it names one, was found on the way.
    case oversized(byteCount: Int, receipt: ReceiptID?)
    /// Not part of any frame (content or END without START): dropped, with a log line.
    case dropped
}

/// Reassembles START / content / END frames on one channel. START resets
/// the buffer, even in the middle of a frame (the phone restarts a frame it
/// gave up on); END delivers; a frame that outgrows `capacity` is no longer
/// kept but followed to its END, which reports it (with its receipt) so
/// that its sender is answered rather than left waiting.
public struct FrameAssembler {
    /// Bytes a frame may hold (docs/NOTIFBRIDGE.md, "Buffer caps").
    public let capacity: Int
    let channel: StaticString
    private var buffer: [UInt8] = []
    public private(set) var isAssembling = false
    /// Bytes of the frame being assembled once it is over `capacity`.
    private var overflow: Int?
    private var scanner = ReceiptScanner()

    /// Key-exchange frames: a prepare is about 1.8 KB of JSON, a legacy
    /// single-shot packet about 3.4 KB.
    public static let keyExchangeCapacity = 16 * 1024
    /// Envelope frames, 1 MiB: text, actions, the two icons and a few small
    /// attachments fit; the app's largest (a 4 MiB event, about 5.6 MB of
    /// envelope) does not, and is receipted and dropped unread
    /// (docs/NOTIFBRIDGE.md, "Buffer caps").
    public static let notificationCapacity = 1024 * 1024

    public init(channel: StaticString, capacity: Int) {
        self.channel = channel
        self.capacity = capacity
    }

    public mutating func take(_ value: ArraySlice<UInt8>) -> FrameStep {
        if value.elementsEqual(FrameToken.start) {
            if isAssembling {
                Log.info(channel, "START in the middle of a frame: \(buffer.count) bytes dropped, starting again")
            }
            buffer = []
            overflow = nil
            scanner.reset()
            isAssembling = true
            return .taken
        }
        if value.elementsEqual(FrameToken.end) {
            guard isAssembling else {
                Log.info(channel, "END without START dropped")
                return .dropped
            }
            isAssembling = false
            if let overflow {
                self.overflow = nil
                return .oversized(byteCount: overflow, receipt: scanner.receipt)
            }
            let frame = buffer
            buffer = []
            return .frame(frame)
        }
        guard isAssembling else {
            Log.debug(channel, "\(value.count) bytes outside a frame dropped")
            return .dropped
        }
        if let bytes = overflow {
            scanner.take(value)
            overflow = bytes + value.count
            return .taken
        }
        guard buffer.count + value.count <= capacity else {
            Log.warning(channel, "frame over \(capacity) bytes: no longer kept, followed to its end for its receipt")
            // Only a frame that is not kept is scanned for its receipt: one
            // that fits is parsed whole, and scanning it too would read every
            // notification twice.
            scanner.take(buffer[...])
            scanner.take(value)
            overflow = buffer.count + value.count
            buffer = []
            return .taken
        }
        buffer.append(contentsOf: value)
        return .taken
    }

    /// The link went down: whatever was half assembled is gone.
    public mutating func reset() {
        buffer = []
        overflow = nil
        scanner.reset()
        isAssembling = false
    }
}

/// Cuts a reverse frame into indication values of at most `maxValue`
/// bytes: START, the slices, END. A slice that would be 20 bytes starting
/// `NBA1` is cut one byte short: the phone takes such a value for an ack.
public func frameValues(_ payload: [UInt8], maxValue: Int) -> [[UInt8]] {
    let size = max(2, maxValue)
    var values: [[UInt8]] = [FrameToken.start]
    var offset = 0
    while offset < payload.count {
        var end = min(offset + size, payload.count)
        if ChunkAck.isAck(Array(payload[offset..<end])) { end -= 1 }
        values.append(Array(payload[offset..<end]))
        offset = end
    }
    values.append(FrameToken.end)
    return values
}
