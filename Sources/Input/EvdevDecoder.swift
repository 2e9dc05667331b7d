/// Turns the byte stream read from an evdev device into events.
///
/// The layout is the 64-bit one (aarch64, x86-64): `struct timeval` as two
/// 8-byte fields, then type u16, code u16 and value s32, little-endian, 24
/// bytes in all. The kernel only hands out whole events, but a read into a
/// buffer that is not a multiple of 24 bytes, or a stream replayed from a
/// file or pipe, can split one: the tail waits for the rest.
public struct EvdevDecoder {
    public static let eventSize = 24

    private var pending: [UInt8] = []

    public init() {}

    /// Bytes held back because they do not yet make a whole event.
    public var pendingCount: Int { pending.count }

    public mutating func decode(_ bytes: [UInt8]) -> [InputEvent] {
        var events: [InputEvent] = []
        decode(bytes) { events.append($0) }
        return events
    }

    /// Calls `handle` for every whole event, in order.
    public mutating func decode(_ bytes: [UInt8], _ handle: (InputEvent) -> Void) {
        var offset = 0
        // Finish the event begun by an earlier read first.
        if !pending.isEmpty {
            let wanted = min(EvdevDecoder.eventSize - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<wanted])
            offset = wanted
            guard pending.count == EvdevDecoder.eventSize else { return }
            handle(EvdevDecoder.event(pending[...]))
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.count - offset >= EvdevDecoder.eventSize {
            handle(EvdevDecoder.event(bytes[offset..<(offset + EvdevDecoder.eventSize)]))
            offset += EvdevDecoder.eventSize
        }
        if offset < bytes.count { pending.append(contentsOf: bytes[offset...]) }
    }

    /// Forgets a partial event (the device was reopened).
    public mutating func reset() { pending.removeAll() }

    /// `raw` holds exactly `eventSize` bytes.
    private static func event(_ raw: ArraySlice<UInt8>) -> InputEvent {
        let base = raw.startIndex
        func field(_ at: Int, _ width: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in 0..<width { v |= UInt64(raw[base + at + i]) << (8 * UInt64(i)) }
            return v
        }
        let seconds = Int64(bitPattern: field(0, 8))
        let micros = Int64(bitPattern: field(8, 8))
        // A wild timestamp must not trap on overflow; it only spoils timing.
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        let time = overflow ? 0 : scaled &+ micros
        return InputEvent(microseconds: time,
                          type: EventType(UInt16(truncatingIfNeeded: field(16, 2))),
                          code: UInt16(truncatingIfNeeded: field(18, 2)),
                          value: Int32(bitPattern: UInt32(truncatingIfNeeded: field(20, 4))))
    }

    /// The bytes the kernel would deliver for `event` (for tests and replay tools).
    public static func encode(_ event: InputEvent) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(eventSize)
        func put(_ v: UInt64, _ width: Int) { for i in 0..<width { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
        let seconds = event.microseconds / 1_000_000, micros = event.microseconds % 1_000_000
        put(UInt64(bitPattern: seconds), 8)
        put(UInt64(bitPattern: micros), 8)
        put(UInt64(event.type.rawValue), 2)
        put(UInt64(event.code), 2)
        put(UInt64(UInt32(bitPattern: event.value)), 4)
        return out
    }
}
