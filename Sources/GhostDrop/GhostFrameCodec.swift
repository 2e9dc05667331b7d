import BluetoothCore
import JSON

/// Why bytes are not a GHST frame.
public enum GhostFrameError: Error, Equatable, CustomStringConvertible {
    case badMagic
    case unsupportedVersion(UInt8)
    case unknownKind(UInt8)
    case bodyTooLong(Int)
    /// A whole frame's length differs from its header's.
    case lengthMismatch
    case body(GhostFrameKind, JSONError)

    public var description: String {
        switch self {
        case .badMagic: return "no GHST magic"
        case .unsupportedVersion(let v): return "version \(v) (only 1 is known)"
        case .unknownKind(let k): return "unknown kind 0x\(hex(k, digits: 2))"
        case .bodyTooLong(let n): return "body of \(n) bytes (at most \(GhostFrameCodec.maxBodyLength))"
        case .lengthMismatch: return "length differs from the header's"
        case .body(let kind, let error): return "\(kind.jsonKey) body: \(error)"
        }
    }
}

/// The GHST frame: "GHST", version 1, kind, body length (UInt32 big-endian),
/// then the JSON body.
public enum GhostFrameCodec {
    public static let magic: [UInt8] = [0x47, 0x48, 0x53, 0x54]
    public static let version: UInt8 = 1
    public static let headerLength = 10
    /// The reference has no bound; ours keeps a hostile length from making
    /// the head unit buffer without end.
    public static let maxBodyLength = 256 * 1024

    public static func encode(_ frame: GhostFrame) -> [UInt8] {
        let body = GhostJSON.body(frame)
        var out = magic
        out.reserveCapacity(headerLength + body.count)
        out.append(version)
        out.append(frame.kind.rawValue)
        let n = UInt32(body.count)
        out.append(contentsOf: [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)])
        out.append(contentsOf: body)
        return out
    }

    /// Exactly one frame (the plaintext of an `encrypted` frame).
    public static func decode(_ bytes: [UInt8]) throws(GhostFrameError) -> GhostFrame {
        guard bytes.count >= headerLength else { throw .lengthMismatch }
        let (kind, length) = try header(bytes[0..<headerLength])
        guard bytes.count == headerLength + length else { throw .lengthMismatch }
        return try body(kind: kind, Array(bytes[headerLength...]))
    }

    /// Kind and body length from the first ten bytes.
    static func header(_ h: ArraySlice<UInt8>) throws(GhostFrameError) -> (GhostFrameKind, Int) {
        let b = h.startIndex
        guard h[b] == magic[0], h[b + 1] == magic[1], h[b + 2] == magic[2], h[b + 3] == magic[3] else { throw .badMagic }
        guard h[b + 4] == version else { throw .unsupportedVersion(h[b + 4]) }
        guard let kind = GhostFrameKind(rawValue: h[b + 5]) else { throw .unknownKind(h[b + 5]) }
        let length = Int(h[b + 6]) << 24 | Int(h[b + 7]) << 16 | Int(h[b + 8]) << 8 | Int(h[b + 9])
        guard length <= maxBodyLength else { throw .bodyTooLong(length) }
        return (kind, length)
    }

    static func body(kind: GhostFrameKind, _ body: [UInt8]) throws(GhostFrameError) -> GhostFrame {
        do throws(JSONError) {
            return try GhostJSON.frame(kind: kind, body: body)
        } catch {
            throw .body(kind, error)
        }
    }
}

/// Frames out of a byte stream (an L2CAP channel's SDUs, or GATT writes
/// joined): bytes go in as they come, whole frames come out. After an error
/// the stream is out of step for good (nothing marks the next frame start),
/// so it keeps failing and the session ends.
public struct GhostFrameStream {
    private var buffer: [UInt8] = []
    private var start = 0
    private var failure: GhostFrameError?

    public init() {}

    /// Bytes received and not yet part of a whole frame.
    public var pendingCount: Int { buffer.count - start }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, nil until one is complete.
    public mutating func next() throws(GhostFrameError) -> GhostFrame? {
        if let failure { throw failure }
        guard buffer.count - start >= GhostFrameCodec.headerLength else { return nil }
        do throws(GhostFrameError) {
            let (kind, length) = try GhostFrameCodec.header(buffer[start..<start + GhostFrameCodec.headerLength])
            let end = start + GhostFrameCodec.headerLength + length
            guard buffer.count >= end else { return nil }
            let body = Array(buffer[start + GhostFrameCodec.headerLength..<end])
            start = end
            return try GhostFrameCodec.body(kind: kind, body)
        } catch {
            failure = error
            throw error
        }
    }
}
