import BluetoothCore

/// Everything L2CAP keeps for LE credit based channels: the services
/// published, the open channels of every link, which links are encrypted,
/// our Disconnection Requests awaiting their response, and the events for
/// the owner. One value inside `L2CAPLayer`.
@usableFromInline struct CreditBasedChannels {
    /// A link holds at most this many channels: each may buffer an SDU of
    /// its service's MTU, so this bounds what a peer can make us keep.
    static let channelsPerLink = 8
    /// An owner that sends faster than the peer grants credits is refused
    /// past this many K-frames waiting on one channel.
    static let framesWaitingPerChannel = 512

    var services: [(spsm: SPSM, service: ChannelService)] = []
    var channels: [CreditBasedChannel] = []
    /// Links encrypted with a key the security manager accepted.
    var encrypted: [ConnectionHandle] = []
    /// Our Disconnection Requests still unanswered: their endpoints stay
    /// allocated until the response (or the link's end).
    var closing: [(handle: ConnectionHandle, identifier: UInt8, local: ChannelIdentifier, remote: ChannelIdentifier)] = []
    @usableFromInline var events = FIFO<ChannelEvent>()

    func service(_ spsm: SPSM) -> ChannelService? { services.first { $0.spsm == spsm }?.service }

    func index(_ handle: ConnectionHandle, local: ChannelIdentifier) -> Int? {
        channels.firstIndex { $0.handle == handle && $0.local == local }
    }

    func index(_ handle: ConnectionHandle, remote: ChannelIdentifier) -> Int? {
        channels.firstIndex { $0.handle == handle && $0.remote == remote }
    }

    /// The lowest dynamic CID free on the link (closing ones included), or nil.
    func freeLocalCID(on handle: ConnectionHandle) -> ChannelIdentifier? {
        var cid: UInt16 = 0x0040
        while cid <= 0x007F {
            let candidate = ChannelIdentifier(cid)
            if index(handle, local: candidate) == nil,
               !closing.contains(where: { $0.handle == handle && $0.local == candidate }) {
                return candidate
            }
            cid += 1
        }
        return nil
    }

    func channelCount(on handle: ConnectionHandle) -> Int { channels.reduce(0) { $0 + ($1.handle == handle ? 1 : 0) } }
}
