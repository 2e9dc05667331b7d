import BluetoothCore

/// The btsnoop capture format (as written by BlueZ's btmon and read by
/// Wireshark), with datalink 1002: each record holds the H4 type byte and
/// the packet. Big-endian throughout, unlike everything else in Bluetooth.
public enum BTSnoop {
    public static let datalinkH4: UInt32 = 1002

    /// Microseconds from 0000-01-01 (the btsnoop epoch) to 1970-01-01.
    public static let unixEpochOffsetMicroseconds: Int64 = 0x00DC_DDB3_0F2F_8000

    public static var fileHeader: [UInt8] {
        var bytes: [UInt8] = Array("btsnoop".utf8) + [0]
        appendBigEndian(&bytes, UInt32(1))
        appendBigEndian(&bytes, datalinkH4)
        return bytes
    }

    /// One record. `unixMicroseconds` is wall-clock time since 1970.
    public static func record(_ packet: HCIPacket, direction: TraceDirection, unixMicroseconds: Int64) -> [UInt8] {
        let length = UInt32(packet.body.count + 1)
        // Flags: bit 0 set for controller-to-host, bit 1 set for commands and events.
        var flags: UInt32 = direction == .received ? 1 : 0
        if packet.type == .command || packet.type == .event { flags |= 2 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24 + Int(length))
        appendBigEndian(&bytes, length) // original length
        appendBigEndian(&bytes, length) // included length
        appendBigEndian(&bytes, flags)
        appendBigEndian(&bytes, UInt32(0)) // cumulative drops
        appendBigEndian(&bytes, UInt64(bitPattern: unixMicroseconds + unixEpochOffsetMicroseconds))
        bytes.append(packet.type.rawValue)
        bytes.append(contentsOf: packet.body)
        return bytes
    }

    private static func appendBigEndian(_ bytes: inout [UInt8], _ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    private static func appendBigEndian(_ bytes: inout [UInt8], _ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
