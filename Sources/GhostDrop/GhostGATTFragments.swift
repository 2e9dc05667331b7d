import BluetoothCore

/// Why a GATT value is not a GhostDrop fragment.
public enum GhostGATTError: Error, Equatable, CustomStringConvertible {
    case badHeader
    /// A frame announced more fragments than a frame body may fill.
    case tooManyFragments(Int)
    /// A fragment disagrees with the earlier ones of its frame (count or flags).
    case inconsistent(frameID: UInt32)

    public var description: String {
        switch self {
        case .badHeader: return "no GD fragment header"
        case .tooManyFragments(let n): return "\(n) fragments"
        case .inconsistent(let id): return "fragments of frame \(id) disagree"
        }
    }
}

/// GhostDrop frames over GATT (Transport/GATTTransport.swift): each encoded
/// frame is cut into values of at most the packet size, each with an
/// 11-byte header: "GD", frame ID (UInt32 BE), fragment index and count
/// (UInt16 BE each), flags (0x01 for a control frame). The sender writes
/// data frames' fragments without response on the data characteristic and
/// control frames' with response on the control characteristic; the
/// receiver notifies its frames on the data characteristic. Fragments of
/// one frame are joined by ID in any order; a frame left incomplete for
/// 10 s is dropped (the sender's window retransmits data frames).
public struct GhostGATTFragments {
    public static let magic: [UInt8] = [0x47, 0x44]
    public static let headerLength = 11
    public static let staleAfter: Int64 = 10_000
    /// Frames being joined at once; the oldest goes when a new one would pass this.
    public static let maxPartialFrames = 64

    struct Partial {
        var count: Int
        var control: Bool
        var pieces: [Int: [UInt8]]
        var updatedAt: Instant
    }

    private var partial: [UInt32: Partial] = [:]
    private var nextFrameID: UInt32 = 1

    public init() {}

    /// One written value; the whole encoded frame when it was the last piece.
    public mutating func receive(_ value: [UInt8], now: Instant) throws(GhostGATTError) -> [UInt8]? {
        partial = partial.filter { now.millisecondsSince($0.value.updatedAt) < GhostGATTFragments.staleAfter }
        guard value.count >= GhostGATTFragments.headerLength, value[0] == 0x47, value[1] == 0x44 else { throw .badHeader }
        let id = UInt32(value[2]) << 24 | UInt32(value[3]) << 16 | UInt32(value[4]) << 8 | UInt32(value[5])
        let index = Int(value[6]) << 8 | Int(value[7])
        let count = Int(value[8]) << 8 | Int(value[9])
        let control = value[10] & 0x01 != 0
        guard count > 0, index < count else { throw .badHeader }
        // Every fragment but the last carries at least one byte.
        guard count <= GhostFrameCodec.headerLength + GhostFrameCodec.maxBodyLength else { throw .tooManyFragments(count) }
        var entry = partial[id] ?? Partial(count: count, control: control, pieces: [:], updatedAt: now)
        guard entry.count == count, entry.control == control else {
            partial[id] = nil
            throw .inconsistent(frameID: id)
        }
        entry.pieces[index] = Array(value[GhostGATTFragments.headerLength...])
        entry.updatedAt = now
        guard entry.pieces.count == count else {
            if partial[id] == nil, partial.count >= GhostGATTFragments.maxPartialFrames,
               let oldest = partial.min(by: { $0.value.updatedAt < $1.value.updatedAt })?.key {
                partial[oldest] = nil
            }
            partial[id] = entry
            return nil
        }
        partial[id] = nil
        var frame: [UInt8] = []
        for i in 0..<count { frame += entry.pieces[i] ?? [] }
        return frame
    }

    /// The values that carry `frame`, each at most `packetSize` bytes (the
    /// ATT MTU − 3 for a notification), under a fresh frame ID.
    public mutating func fragments(of frame: [UInt8], packetSize: Int, control: Bool) -> [[UInt8]] {
        let id = nextFrameID
        nextFrameID = nextFrameID == UInt32.max ? 1 : nextFrameID + 1
        let capacity = max(packetSize - GhostGATTFragments.headerLength, 1)
        let count = max(1, (frame.count + capacity - 1) / capacity)
        var out: [[UInt8]] = []
        out.reserveCapacity(count)
        for index in 0..<count {
            var value = GhostGATTFragments.magic
            value += [UInt8(id >> 24), UInt8(id >> 16 & 0xFF), UInt8(id >> 8 & 0xFF), UInt8(id & 0xFF)]
            value += [UInt8(index >> 8), UInt8(index & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
            value.append(control ? 0x01 : 0x00)
            value += frame[min(index * capacity, frame.count)..<min((index + 1) * capacity, frame.count)]
            out.append(value)
        }
        return out
    }
}
