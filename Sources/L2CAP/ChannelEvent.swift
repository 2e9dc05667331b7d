import BluetoothCore

/// One channel, as its owner names it: the link, our endpoint, the service.
public struct ChannelEndpoint: Hashable, CustomStringConvertible {
    public let handle: ConnectionHandle
    public let local: ChannelIdentifier
    public let spsm: SPSM

    public init(handle: ConnectionHandle, local: ChannelIdentifier, spsm: SPSM) {
        self.handle = handle
        self.local = local
        self.spsm = spsm
    }

    public var description: String { "\(spsm) channel \(local) on \(handle)" }
}

/// One SDU the peer sent on a channel, whole.
public struct ChannelSDU: Hashable {
    public let channel: ChannelEndpoint
    public let bytes: [UInt8]

    public init(channel: ChannelEndpoint, bytes: [UInt8]) {
        self.channel = channel
        self.bytes = bytes
    }
}

/// Why a channel ended.
public enum ChannelClosure: Hashable, CustomStringConvertible {
    /// The peer sent a Disconnection Request.
    case peerDisconnected
    /// Our owner closed it (`closeChannel`).
    case closedHere
    /// The peer broke the channel's rules (a K-frame without a credit,
    /// above our MPS or MTU, past its SDU length, credits past 65535):
    /// we disconnected it.
    case peerViolation(String)
    /// The link went down.
    case linkGone

    public var description: String {
        switch self {
        case .peerDisconnected: return "the peer disconnected it"
        case .closedHere: return "closed here"
        case .peerViolation(let what): return "the peer sent " + what
        case .linkGone: return "the link went down"
        }
    }
}

/// What the LE credit based channels hand to their owner, drained with
/// `L2CAPLayer.pollChannelEvent()` after every input.
public enum ChannelEvent: Hashable {
    /// A peer opened a channel to a published service: `peerMTU` is the
    /// largest SDU `sendSDU` may give it.
    case opened(ChannelEndpoint, peerMTU: UInt16)
    case received(ChannelSDU)
    case closed(ChannelEndpoint, ChannelClosure)
}
