import BluetoothCore

/// The LE signaling channel (CID 0x0005). On LE each C-frame carries exactly
/// one command: code, identifier, length, data (Core Vol 3 Part A 4).
extension L2CAPLayer {
    mutating func handleSignaling(_ payload: ArraySlice<UInt8>, link: L2CAPLink) {
        var r = ByteReader(payload)
        guard let rawCode = r.u8(), let identifier = r.u8(), let length = r.u16() else {
            Log.warning("l2cap", "signaling frame of \(payload.count) bytes on \(link.handle) dropped: too short")
            return
        }
        let code = SignalingCode(rawCode)
        guard Int(length) == r.remainingCount else {
            Log.warning("l2cap", "\(code) on \(link.handle) dropped: length \(length) but \(r.remainingCount) data bytes")
            return
        }
        // 0x00 is an illegal identifier: a command carrying it cannot be
        // answered (the answer would carry it too).
        guard identifier != 0 else {
            Log.warning("l2cap", "\(code) with identifier 0 on \(link.handle) dropped")
            return
        }
        guard payload.count <= L2CAPLayer.signalingMTU else {
            // Not even an oversized response is answered: two stacks would
            // loop (a Command Reject is itself a response).
            guard !code.isResponse else {
                Log.warning("l2cap", "oversized \(code) of \(payload.count) bytes on \(link.handle) ignored")
                return
            }
            Log.warning("l2cap", "\(code) of \(payload.count) bytes on \(link.handle) exceeds the signaling MTU")
            var mtu = ByteWriter()
            mtu.u16(UInt16(L2CAPLayer.signalingMTU))
            reject(identifier, .signalingMTUExceeded, data: mtu.bytes, link: link)
            return
        }
        var data = ByteReader(r.rest())

        switch code {
        case .connectionParameterUpdateRequest:
            // Only a central answers these; a peripheral does not understand them.
            guard link.role == .central else {
                reject(identifier, .commandNotUnderstood, link: link)
                return
            }
            guard let min = data.u16(), let max = data.u16(), let latency = data.u16(), let timeout = data.u16(), data.isAtEnd else {
                Log.warning("l2cap", "\(code) with \(length) data bytes on \(link.handle) rejected")
                reject(identifier, .commandNotUnderstood, link: link)
                return
            }
            let parameters = ConnectionParameters(intervalMin: min, intervalMax: max, peripheralLatency: latency, supervisionTimeout: timeout)
            let accepted = parameters.isValid
            Log.info("l2cap", (accepted ? "accepting " : "rejecting ") + "parameter update on \(link.handle): \(parameters)")
            var w = ByteWriter()
            w.u16((accepted ? ConnectionParameterUpdateResult.accepted : .rejected).rawValue)
            sendCommand(.connectionParameterUpdateResponse, identifier, w.bytes, link: link)
            // The spec orders it this way: response first, then the
            // controller procedure.
            if accepted { events.append(.updateConnectionParameters(link.handle, parameters)) }

        case .leCreditBasedConnectionRequest:
            creditBasedConnectionRequested(identifier, &data, link: link)

        case .creditBasedConnectionRequest:
            // SPSM, MTU, MPS, initial credits, then 1..5 source CIDs.
            guard let spsm = data.u16(), data.skip(6), data.remainingCount >= 2,
                  data.remainingCount <= 10, data.remainingCount % 2 == 0 else {
                reject(identifier, .commandNotUnderstood, link: link)
                return
            }
            let channels = data.remainingCount / 2
            Log.info("l2cap", "refusing credit based connection of \(channels) channel(s) to SPSM 0x\(hex(spsm, digits: 4)) on \(link.handle)")
            var w = ByteWriter()
            w.u16(0); w.u16(0); w.u16(0)
            w.u16(CreditBasedConnectionResult.spsmNotSupported.rawValue)
            for _ in 0..<channels { w.u16(0) }  // no destination CID for any of them
            sendCommand(.creditBasedConnectionResponse, identifier, w.bytes, link: link)

        case .creditBasedReconfigureRequest:
            guard data.remainingCount >= 6, data.remainingCount % 2 == 0 else {
                reject(identifier, .commandNotUnderstood, link: link)
                return
            }
            // We have no channels, so every destination CID named is invalid.
            var w = ByteWriter()
            w.u16(0x0003)
            sendCommand(.creditBasedReconfigureResponse, identifier, w.bytes, link: link)

        case .disconnectionRequest:
            guard let destination = data.u16(), let source = data.u16(), data.isAtEnd else {
                reject(identifier, .commandNotUnderstood, link: link)
                return
            }
            if disconnectionRequested(identifier, destination: destination, source: source, link: link) { return }
            // No such channel here: Command Reject "invalid CID in request"
            // with our endpoint (its destination) then its endpoint (its source).
            Log.info("l2cap", "disconnection request for unknown CID 0x\(hex(destination, digits: 4)) on \(link.handle)")
            var w = ByteWriter()
            w.u16(destination)
            w.u16(source)
            reject(identifier, .invalidCIDInRequest, data: w.bytes, link: link)

        case .flowControlCreditIndication:
            creditsIndicated(&data, link: link)

        default:
            if code.isResponse, answerParameterUpdate(code, identifier, data: &data, link: link)
                || answerDisconnection(code, identifier, link: link) {
                return
            }
            if code.isResponse {
                // It answers none of our requests. Never reject a response: two stacks would loop.
                Log.warning("l2cap", "unsolicited \(code) (identifier \(identifier)) on \(link.handle) ignored")
            } else {
                Log.info("l2cap", "\(code) on \(link.handle) not understood")
                reject(identifier, .commandNotUnderstood, link: link)
            }
        }
    }

    mutating func reject(_ identifier: UInt8, _ reason: CommandRejectReason, data: [UInt8] = [], link: L2CAPLink) {
        var w = ByteWriter()
        w.u16(reason.rawValue)
        w.append(data)
        sendCommand(.commandReject, identifier, w.bytes, link: link)
    }

    mutating func sendCommand(_ code: SignalingCode, _ identifier: UInt8, _ data: [UInt8], link: L2CAPLink) {
        var w = ByteWriter(capacity: 4 + data.count)
        w.u8(code.rawValue)
        w.u8(identifier)
        w.u16(UInt16(data.count))
        w.append(data)
        events.append(.transmit(link.handle, BasicFrame.encode(channel: .leSignaling, payload: w.bytes)))
    }
}
