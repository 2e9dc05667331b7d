import BluetoothCore
import L2CAP

/// Where GhostDrop's L2CAP channel meets the core: the SPSM the head unit
/// publishes for it (a dynamic one, encryption required, as the GhostDrop
/// app's receiver does with `publishL2CAPChannel(withEncryption: true)`),
/// the channels a sender opened on it, and what arrived.
///
/// The seam for the GhostDrop receiver: `received` takes each SDU whole,
/// as a value (on L2CAP GhostDrop's `GHST` frames follow one another on a
/// stream, so an SDU may hold part of a frame or several); what the
/// receiver answers goes out through `send`, cut to the sender's MTU.
/// Until the receiver is wired here, each SDU is logged and counted.
public struct GhostDropChannel {
    /// SDUs of up to 2048 bytes (iOS's own MTU for an L2CAP channel it
    /// publishes) in K-frames of 247 bytes, one LE data PDU each.
    public static let service = ChannelService(security: .encrypted, mtu: 2048, mps: 247)

    /// The SPSM GhostDrop's capabilities carry; nil if none was free.
    public internal(set) var spsm: SPSM?
    /// Open channels to it and the largest SDU each sender takes.
    public internal(set) var open: [(channel: ChannelEndpoint, peerMTU: UInt16)] = []
    public internal(set) var sdusReceived = 0
    public internal(set) var bytesReceived = 0
    /// What goes to the sender, by channel; the core hands it to L2CAP.
    var outgoing = FIFO<ChannelSDU>()

    mutating func opened(_ channel: ChannelEndpoint, peerMTU: UInt16) {
        open.append((channel, peerMTU))
        Log.info("ghostdrop", "a sender opened \(channel) (it takes SDUs of up to \(peerMTU) bytes)")
    }

    mutating func closed(_ channel: ChannelEndpoint, _ why: ChannelClosure) {
        open.removeAll { $0.channel == channel }
        Log.info("ghostdrop", "\(channel) closed: \(why)")
    }

    /// One SDU from a sender. Today: counted and logged.
    mutating func received(_ sdu: ChannelSDU) {
        sdusReceived += 1
        bytesReceived += sdu.bytes.count
        Log.info("ghostdrop", "SDU \(sdusReceived) of \(sdu.bytes.count) bytes on \(sdu.channel) (\(bytesReceived) bytes in all); no receiver takes it yet")
    }

    /// Bytes for the sender on `channel`, cut into SDUs it takes.
    mutating func send(_ bytes: [UInt8], on channel: ChannelEndpoint) {
        guard let peerMTU = open.first(where: { $0.channel == channel })?.peerMTU else {
            Log.warning("ghostdrop", "\(bytes.count) bytes for \(channel), which is not open; dropped")
            return
        }
        var offset = 0
        repeat {
            let end = min(offset + Int(peerMTU), bytes.count)
            outgoing.append(ChannelSDU(channel: channel, bytes: Array(bytes[offset..<end])))
            offset = end
        } while offset < bytes.count
    }
}
