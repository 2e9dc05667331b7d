import BluetoothCore

/// One open LE credit based connection-oriented channel (Core Vol 3 Part A
/// 3.4, 10.1): its two endpoints, what each side takes, the credits each
/// way, the SDU being reassembled and the K-frames waiting for credits.
public struct CreditBasedChannel {
    public let handle: ConnectionHandle
    public let spsm: SPSM
    /// Our endpoint: the peer's K-frames carry it.
    public let local: ChannelIdentifier
    /// The peer's endpoint: ours carry it.
    public let remote: ChannelIdentifier
    /// What we take, and what the peer takes.
    public let service: ChannelService
    public let peerMTU: UInt16
    public let peerMPS: UInt16
    /// K-frames we may still send (the peer's grants).
    public internal(set) var sendCredits: Int
    /// K-frames the peer may still send us (our grants).
    public internal(set) var receiveCredits: Int

    /// The SDU in reassembly: its length from the first K-frame, and the
    /// bytes so far.
    var expectedLength: Int?
    var reassembly: [UInt8] = []
    /// K-frame payloads (SDU length field included in each SDU's first) cut
    /// at the peer's MPS, waiting for credits.
    var waiting = FIFO<[UInt8]>()

    init(handle: ConnectionHandle, spsm: SPSM, local: ChannelIdentifier, remote: ChannelIdentifier,
         service: ChannelService, peerMTU: UInt16, peerMPS: UInt16, peerCredits: UInt16) {
        self.handle = handle
        self.spsm = spsm
        self.local = local
        self.remote = remote
        self.service = service
        self.peerMTU = peerMTU
        self.peerMPS = peerMPS
        sendCredits = Int(peerCredits)
        receiveCredits = Int(service.credits)
    }

    /// K-frames queued for want of credits.
    public var framesWaiting: Int { waiting.count }

    /// What one K-frame from the peer did.
    enum Reception: Equatable {
        /// Part of an SDU; more K-frames to come.
        case partial
        case sdu([UInt8])
        /// The peer broke the channel's rules: the channel must be
        /// disconnected (Core Vol 3 Part A 3.4.3, 10.1).
        case violation(String)
    }

    /// One K-frame's information payload for this channel.
    mutating func receive(_ payload: ArraySlice<UInt8>) -> Reception {
        guard receiveCredits > 0 else { return .violation("a K-frame without a credit") }
        receiveCredits -= 1
        guard payload.count <= Int(service.mps) else {
            return .violation("a K-frame of \(payload.count) bytes above our MPS \(service.mps)")
        }
        var bytes = payload[...]
        if expectedLength == nil {
            var r = ByteReader(payload)
            guard let length = r.u16() else { return .violation("a first K-frame without the SDU length") }
            guard length <= service.mtu else { return .violation("an SDU of \(length) bytes above our MTU \(service.mtu)") }
            expectedLength = Int(length)
            reassembly.reserveCapacity(Int(length))
            bytes = r.rest()
        }
        guard let expected = expectedLength, reassembly.count + bytes.count <= expected else {
            return .violation("K-frames beyond the SDU length \(expectedLength ?? 0)")
        }
        reassembly.append(contentsOf: bytes)
        guard reassembly.count == expected else { return .partial }
        let sdu = reassembly
        reassembly = []
        expectedLength = nil
        return .sdu(sdu)
    }

    /// Credits to give the peer now: none while it holds more than half of
    /// our grant, else as many as bring it back to the whole grant (one
    /// indication per half-grant, not one per K-frame).
    mutating func creditsToReturn() -> UInt16? {
        let grant = Int(service.credits)
        guard receiveCredits <= grant / 2 else { return nil }
        let credits = grant - receiveCredits
        guard credits > 0 else { return nil }
        receiveCredits = grant
        return UInt16(credits)
    }

    /// Cuts an SDU into K-frame payloads at the peer's MPS and queues them.
    mutating func queue(_ sdu: [UInt8]) {
        let mps = Int(peerMPS)
        var first = ByteWriter(capacity: min(mps, sdu.count + CreditBasedLimits.sduLengthSize))
        first.u16(UInt16(sdu.count))
        let firstCount = min(sdu.count, mps - CreditBasedLimits.sduLengthSize)
        first.append(sdu[0..<firstCount])
        waiting.append(first.bytes)
        var offset = firstCount
        while offset < sdu.count {
            let end = min(offset + mps, sdu.count)
            waiting.append(Array(sdu[offset..<end]))
            offset = end
        }
    }

    /// The next K-frame payload to send, spending a credit; nil when none
    /// waits or no credit is left.
    mutating func nextFrame() -> [UInt8]? {
        guard sendCredits > 0, let payload = waiting.popFirst() else { return nil }
        sendCredits -= 1
        return payload
    }

    /// The peer's Flow Control Credit Indication; false when the count
    /// would pass 65535, which ends the channel (Core Vol 3 Part A 10.1).
    mutating func addSendCredits(_ credits: UInt16) -> Bool {
        guard sendCredits + Int(credits) <= CreditBasedLimits.maximumCredits else { return false }
        sendCredits += Int(credits)
        return true
    }
}
