import BluetoothCore

/// LE credit based connection-oriented channels (Core Vol 3 Part A 3.4,
/// 4.22-4.24, 10.1), as the acceptor: a service published on a dynamic
/// SPSM, peers open channels to it, SDUs go both ways cut into K-frames at
/// the receiver's MPS, each K-frame spending one of the credits its
/// receiver granted.
///
/// Inputs: `publish`, `setLinkEncrypted`, `sendSDU`, `closeChannel`, and
/// what `receive(_:on:)` routes here (signaling commands, K-frames on
/// dynamic CIDs). Outputs: K-frames and signaling as `.transmit` events,
/// and `pollChannelEvent()` (opened, each SDU whole, closed).
extension L2CAPLayer {
    // MARK: - The owner's side

    /// Publishes a service on the lowest free dynamic SPSM (0x0080-0x00FF)
    /// and returns it; nil when all 128 are taken.
    public mutating func publish(_ service: ChannelService) -> SPSM? {
        for raw in SPSM.dynamicRange where creditBased.service(SPSM(raw)) == nil {
            let spsm = SPSM(raw)
            creditBased.services.append((spsm, service))
            Log.info("l2cap", "\(spsm) published (MTU \(service.mtu), MPS \(service.mps), \(service.credits) credits, \(service.security == .encrypted ? "encryption required" : "no security"))")
            return spsm
        }
        Log.error("l2cap", "no dynamic SPSM left to publish")
        return nil
    }

    /// The security manager accepted the link's encryption (true), or the
    /// link is not (or no longer) encrypted with an accepted key (false).
    /// Channels already open stay open: only new connections are checked.
    public mutating func setLinkEncrypted(_ handle: ConnectionHandle, _ encrypted: Bool) {
        creditBased.encrypted.removeAll { $0 == handle }
        if encrypted { creditBased.encrypted.append(handle) }
    }

    /// Inlinable, like `pollEvent`: the core polls on every pass, mostly finding nothing.
    @inlinable public mutating func pollChannelEvent() -> ChannelEvent? { creditBased.events.popFirst() }

    /// The channel as it stands, nil when it is not open.
    public func channel(_ endpoint: ChannelEndpoint) -> CreditBasedChannel? {
        creditBased.index(endpoint.handle, local: endpoint.local).map { creditBased.channels[$0] }
    }

    /// Sends an SDU on an open channel: cut at the peer's MPS, sent as far
    /// as the peer's credits go, the rest when it grants more. False (and a
    /// log line) when the channel is not open, the SDU is above the peer's
    /// MTU, or too much already waits for credits.
    @discardableResult
    public mutating func sendSDU(_ sdu: [UInt8], on endpoint: ChannelEndpoint) -> Bool {
        guard let i = creditBased.index(endpoint.handle, local: endpoint.local) else {
            Log.warning("l2cap", "SDU of \(sdu.count) bytes for \(endpoint), which is not open; dropped")
            return false
        }
        let peerMTU = creditBased.channels[i].peerMTU
        guard sdu.count <= Int(peerMTU) else {
            Log.error("l2cap", "SDU of \(sdu.count) bytes above the peer's MTU \(peerMTU) on \(endpoint); dropped")
            return false
        }
        guard creditBased.channels[i].framesWaiting < CreditBasedChannels.framesWaitingPerChannel else {
            Log.warning("l2cap", "\(endpoint): \(creditBased.channels[i].framesWaiting) K-frames wait for credits; SDU of \(sdu.count) bytes refused")
            return false
        }
        creditBased.channels[i].queue(sdu)
        sendWaitingFrames(i)
        return true
    }

    /// Ends a channel: Disconnection Request to the peer; the channel is
    /// gone at once (K-frames still arriving for it are dropped).
    public mutating func closeChannel(_ endpoint: ChannelEndpoint) {
        guard let i = creditBased.index(endpoint.handle, local: endpoint.local) else { return }
        disconnectChannel(at: i, .closedHere)
    }

    // MARK: - From the link

    /// An LE Credit Based Connection Request (code 0x14): SPSM, source CID,
    /// MTU, MPS, initial credits.
    mutating func creditBasedConnectionRequested(_ identifier: UInt8, _ data: inout ByteReader, link: L2CAPLink) {
        guard let raw = data.u16(), let sourceCID = data.u16(), let mtu = data.u16(), let mps = data.u16(),
              let credits = data.u16(), data.isAtEnd else {
            reject(identifier, .commandNotUnderstood, link: link)
            return
        }
        let spsm = SPSM(raw)
        let source = ChannelIdentifier(sourceCID)
        let handle = link.handle
        let refusal: CreditBasedConnectionResult?
        let service = creditBased.service(spsm)
        var local: ChannelIdentifier?
        if service == nil {
            refusal = .spsmNotSupported
        } else if service?.security == .encrypted, !creditBased.encrypted.contains(handle) {
            refusal = .insufficientEncryption
        } else if !source.isDynamicLE {
            refusal = .invalidSourceCID
        } else if creditBased.index(handle, remote: source) != nil {
            refusal = .sourceCIDAlreadyAllocated
        } else if mtu < CreditBasedLimits.minimumMTU || mps < CreditBasedLimits.minimumMPS || mps > CreditBasedLimits.maximumMPS {
            refusal = .unacceptableParameters
        } else if creditBased.channelCount(on: handle) >= CreditBasedChannels.channelsPerLink {
            refusal = .noResourcesAvailable
        } else {
            local = creditBased.freeLocalCID(on: handle)
            refusal = local == nil ? .noResourcesAvailable : nil
        }
        var w = ByteWriter(capacity: 10)
        guard let service, let local, refusal == nil else {
            let result = refusal ?? .noResourcesAvailable
            Log.info("l2cap", "refusing LE credit based connection to \(spsm) from source CID 0x\(hex(sourceCID, digits: 4)) on \(handle): \(result)")
            // Destination CID, MTU, MPS and initial credits are 0 in a refusal.
            w.u16(0); w.u16(0); w.u16(0); w.u16(0)
            w.u16(result.rawValue)
            sendCommand(.leCreditBasedConnectionResponse, identifier, w.bytes, link: link)
            return
        }
        let channel = CreditBasedChannel(handle: handle, spsm: spsm, local: local, remote: source, service: service,
                                         peerMTU: mtu, peerMPS: mps, peerCredits: credits)
        creditBased.channels.append(channel)
        w.u16(local.rawValue)
        w.u16(service.mtu)
        w.u16(service.mps)
        w.u16(service.credits)
        w.u16(CreditBasedConnectionResult.successful.rawValue)
        sendCommand(.leCreditBasedConnectionResponse, identifier, w.bytes, link: link)
        let endpoint = ChannelEndpoint(handle: handle, local: local, spsm: spsm)
        Log.info("l2cap", "\(endpoint) open to CID 0x\(hex(sourceCID, digits: 4)): peer MTU \(mtu), MPS \(mps), \(credits) credits")
        creditBased.events.append(.opened(endpoint, peerMTU: mtu))
    }

    /// A Flow Control Credit Indication (code 0x16): the peer's CID (our
    /// destination), credits.
    mutating func creditsIndicated(_ data: inout ByteReader, link: L2CAPLink) {
        guard let cid = data.u16(), let credits = data.u16(), data.isAtEnd else {
            Log.warning("l2cap", "malformed Flow Control Credit Indication on \(link.handle) ignored")
            return
        }
        guard let i = creditBased.index(link.handle, remote: ChannelIdentifier(cid)) else {
            // An indication is never answered.
            Log.info("l2cap", "credits for unknown CID 0x\(hex(cid, digits: 4)) on \(link.handle) ignored")
            return
        }
        guard creditBased.channels[i].addSendCredits(credits) else {
            disconnectChannel(at: i, .peerViolation("credits past 65535"))
            return
        }
        sendWaitingFrames(i)
    }

    /// A Disconnection Request for one of our channels: answered, and the
    /// channel is gone. False when it names no channel of ours (the caller
    /// rejects it).
    mutating func disconnectionRequested(_ identifier: UInt8, destination: UInt16, source: UInt16, link: L2CAPLink) -> Bool {
        guard let i = creditBased.index(link.handle, local: ChannelIdentifier(destination)) else { return false }
        let channel = creditBased.channels[i]
        guard channel.remote.rawValue == source else {
            // Core Vol 3 Part A 4.6: a source CID that does not match is
            // silently discarded.
            Log.warning("l2cap", "Disconnection Request for \(channel.local) with source CID 0x\(hex(source, digits: 4)), not 0x\(hex(channel.remote.rawValue, digits: 4)), on \(link.handle) discarded")
            return true
        }
        var w = ByteWriter(capacity: 4)
        w.u16(destination)
        w.u16(source)
        sendCommand(.disconnectionResponse, identifier, w.bytes, link: link)
        remove(at: i, .peerDisconnected)
        return true
    }

    /// A Disconnection Response: true when it answers one of our requests.
    mutating func answerDisconnection(_ code: SignalingCode, _ identifier: UInt8, link: L2CAPLink) -> Bool {
        guard code == .disconnectionResponse || code == .commandReject,
              let i = creditBased.closing.firstIndex(where: { $0.handle == link.handle && $0.identifier == identifier }) else {
            return false
        }
        // Either answer frees the endpoint: a Command Reject says the peer
        // has no such channel any more.
        creditBased.closing.remove(at: i)
        return true
    }

    /// A basic frame on a dynamic CID: a K-frame for one of our channels.
    mutating func receiveKFrame(_ payload: ArraySlice<UInt8>, on cid: ChannelIdentifier, link: L2CAPLink) {
        guard let i = creditBased.index(link.handle, local: cid) else {
            Log.info("l2cap", "K-frame for \(cid) on \(link.handle) dropped: no such channel")
            return
        }
        switch creditBased.channels[i].receive(payload) {
        case .partial:
            break
        case .sdu(let bytes):
            let channel = creditBased.channels[i]
            let endpoint = ChannelEndpoint(handle: channel.handle, local: channel.local, spsm: channel.spsm)
            creditBased.events.append(.received(ChannelSDU(channel: endpoint, bytes: bytes)))
        case .violation(let what):
            Log.warning("l2cap", "the peer of \(creditBased.channels[i].local) on \(link.handle) sent \(what); disconnecting the channel")
            disconnectChannel(at: i, .peerViolation(what))
            return
        }
        // Credits go back as K-frames arrive, not as the owner takes SDUs:
        // the owner takes each SDU in the same pump, and the MTU bounds
        // what one channel keeps.
        if let credits = creditBased.channels[i].creditsToReturn() {
            var w = ByteWriter(capacity: 4)
            w.u16(creditBased.channels[i].local.rawValue)
            w.u16(credits)
            sendCommand(.flowControlCreditIndication, nextSignalingIdentifier(), w.bytes, link: link)
        }
    }

    /// Every channel of a link that went down ends with it.
    mutating func creditBasedLinkGone(_ handle: ConnectionHandle) {
        while let i = creditBased.channels.firstIndex(where: { $0.handle == handle }) {
            remove(at: i, .linkGone)
        }
        creditBased.closing.removeAll { $0.handle == handle }
        creditBased.encrypted.removeAll { $0 == handle }
    }

    // MARK: - Helpers

    private mutating func sendWaitingFrames(_ i: Int) {
        let handle = creditBased.channels[i].handle
        let remote = creditBased.channels[i].remote
        while let payload = creditBased.channels[i].nextFrame() {
            events.append(.transmit(handle, BasicFrame.encode(channel: remote, payload: payload)))
        }
    }

    /// Our Disconnection Request (destination: the peer's CID, source: ours).
    private mutating func disconnectChannel(at i: Int, _ why: ChannelClosure) {
        let channel = creditBased.channels[i]
        let identifier = nextSignalingIdentifier()
        var w = ByteWriter(capacity: 4)
        w.u16(channel.remote.rawValue)
        w.u16(channel.local.rawValue)
        if let link = links[channel.handle] {
            sendCommand(.disconnectionRequest, identifier, w.bytes, link: link)
            creditBased.closing.append((channel.handle, identifier, channel.local, channel.remote))
        }
        remove(at: i, why)
    }

    private mutating func remove(at i: Int, _ why: ChannelClosure) {
        let channel = creditBased.channels.remove(at: i)
        let endpoint = ChannelEndpoint(handle: channel.handle, local: channel.local, spsm: channel.spsm)
        Log.info("l2cap", "\(endpoint) closed: \(why)")
        creditBased.events.append(.closed(endpoint, why))
    }

    /// Identifiers of our requests: 1-255 in turn (0 is illegal).
    mutating func nextSignalingIdentifier() -> UInt8 {
        lastIdentifier = lastIdentifier == UInt8.max ? 1 : lastIdentifier + 1
        return lastIdentifier
    }
}

extension CreditBasedConnectionResult: CustomStringConvertible {
    public var description: String {
        switch self {
        case .successful: return "successful"
        case .spsmNotSupported: return "SPSM not supported"
        case .noResourcesAvailable: return "no resources available"
        case .insufficientAuthentication: return "insufficient authentication"
        case .insufficientAuthorization: return "insufficient authorization"
        case .encryptionKeySizeTooShort: return "encryption key size too short"
        case .insufficientEncryption: return "insufficient encryption"
        case .invalidSourceCID: return "invalid source CID"
        case .sourceCIDAlreadyAllocated: return "source CID already allocated"
        case .unacceptableParameters: return "unacceptable parameters"
        }
    }
}
