import BluetoothCore

/// An L2CAP basic information frame: length (u16, payload only), channel ID
/// (u16), payload (Core Vol 3 Part A 3.1). HCI reassembles ACL fragments into
/// these and fragments them again on the way out.
public enum BasicFrame {
    public static let headerLength = 4

    public static func encode(channel: ChannelIdentifier, payload: [UInt8]) -> [UInt8] {
        var w = ByteWriter(capacity: headerLength + payload.count)
        w.u16(UInt16(truncatingIfNeeded: payload.count))
        w.u16(channel.rawValue)
        w.append(payload)
        return w.bytes
    }

    /// The channel and payload, or nil when the length field disagrees with
    /// the bytes present.
    public static func decode(_ frame: [UInt8]) -> (channel: ChannelIdentifier, payload: ArraySlice<UInt8>)? {
        decode(frame[...])
    }

    public static func decode(_ frame: ArraySlice<UInt8>) -> (channel: ChannelIdentifier, payload: ArraySlice<UInt8>)? {
        guard let channel = channel(of: frame) else { return nil }
        return (channel, frame.dropFirst(headerLength))
    }

    /// The channel of a frame whose payload is the frame after the
    /// header, or nil when the length field disagrees with the bytes
    /// present. (The receive path's way: an optional holding the payload
    /// too costs a call through the standard library's generic Optional
    /// to destroy, about 70 instructions a frame.)
    public static func channel(of frame: ArraySlice<UInt8>) -> ChannelIdentifier? {
        var r = ByteReader(frame)
        guard let length = r.u16(), let cid = r.u16(), r.remainingCount == Int(length) else { return nil }
        return ChannelIdentifier(cid)
    }
}
