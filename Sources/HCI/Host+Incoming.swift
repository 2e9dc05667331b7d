import BluetoothCore

/// The controller's packets, decoded and routed to the job they concern.
extension Host {
    /// One packet's type and body, as it lies in the framer's buffer: an
    /// array of its own is made only for a trace.
    func receive(_ type: HCIPacketType, _ body: ArraySlice<UInt8>) {
        if let packetObserver { packetObserver(HCIPacket(type: type, body: Array(body)), .received) }
        switch type {
        case .event:
            guard let event = HCIEvent(body: body) else {
                return dropMalformed("event dropped: \(hexString(body.prefix(32)))")
            }
            handle(event)
        case .aclData:
            guard case let (handle, boundary)? = ACLPacket.header(of: body) else {
                return dropMalformed("ACL packet dropped (length field disagrees)")
            }
            receiveACL(body.dropFirst(4), boundary: boundary, on: handle)
        default:
            Log.debug("hci", "ignoring packet of type \(type.rawValue)")
        }
    }

    /// Malformed packets are logged a few at a time: a controller passes
    /// up whatever nearby devices send, at any rate.
    private func dropMalformed(_ what: @autoclosure () -> String) {
        if let skipped = malformedLog.occurrence(now: now) {
            Log.warning("hci", "malformed \(what())\(LogThrottle.suffix(skipped))")
        }
    }

    private func handle(_ event: HCIEvent) {
        switch event {
        case let .commandComplete(credits, opcode, params):
            commandAnswered(opcode: opcode, credits: credits, result: .complete(params))
            if let s = params.first, s != 0, opcode.value != 0 {
                Log.debug("hci", "\(opcode) failed: \(HCIStatus(s))")
            }
        case let .commandStatus(status, credits, opcode):
            commandAnswered(opcode: opcode, credits: credits, result: .pending(status))
            if !status.isSuccess, opcode.value != 0 {
                Log.warning("hci", "\(opcode) refused: \(status)")
                emit(.commandFailed(opcode: opcode, status: status))
            }
        case let .disconnectionComplete(status, handle, reason):
            guard status.isSuccess else {
                Log.warning("hci", "disconnect of \(handle) failed: \(status)")
                return
            }
            linkGone(handle)
            emit(.disconnected(handle: handle, reason: reason))
        case let .encryptionChange(status, handle, enabled):
            connections[handle]?.link.encrypted = status.isSuccess && enabled
            emit(.encryptionChanged(handle: handle, status: status, enabled: enabled))
        case let .encryptionKeyRefreshComplete(status, handle):
            emit(.encryptionKeyRefreshed(handle: handle, status: status))
        case .readRemoteVersionComplete:
            break
        case let .hardwareError(code):
            Log.error("hci", "controller reported Hardware Error 0x\(hex(code, digits: 2)); resetting it")
            recover(reason: "Hardware Error 0x\(hex(code, digits: 2))")
        case let .numberOfCompletedPackets(entries):
            packetsCompleted(entries)
        case let .dataBufferOverflow(linkType):
            Log.error("hci", "controller reports a data buffer overflow (link type \(linkType)): ACL flow control out of step")
        case let .le(meta):
            handle(meta)
        case let .other(code, _):
            Log.debug("hci", "unhandled event 0x\(hex(code, digits: 2))")
        }
    }

    private func handle(_ meta: LEMetaEvent) {
        switch meta {
        case let .connectionComplete(c):
            connectionComplete(c)
        case let .advertisingReports(reports):
            for report in reports { emit(.advertisingReport(report)) }
        case let .connectionUpdateComplete(status, handle, interval, latency, timeout):
            guard status.isSuccess else {
                Log.info("hci", "connection update on \(handle) failed: \(status)")
                return
            }
            connections[handle]?.link.interval = interval
            connections[handle]?.link.latency = latency
            connections[handle]?.link.supervisionTimeout = timeout
            emit(.connectionUpdated(handle: handle, interval: interval, latency: latency, supervisionTimeout: timeout))
        case let .longTermKeyRequest(handle, random, ediv):
            emit(.longTermKeyRequest(handle: handle, random: random, ediv: ediv))
        case let .remoteConnectionParameterRequest(handle, parameters):
            // The peer asks for new parameters at the link layer. Take any
            // valid request: iOS asks for what its power management needs.
            if parameters.isValid {
                send(.leRemoteConnectionParameterRequestReply(handle, parameters))
            } else {
                Log.warning("hci", "rejecting invalid connection parameters from \(handle): \(parameters)")
                send(.leRemoteConnectionParameterRequestNegativeReply(handle, reason: .unacceptableConnectionParameters))
            }
        case let .dataLengthChange(handle, maxTx, _, maxRx, _):
            connections[handle]?.link.maxTxOctets = maxTx
            connections[handle]?.link.maxRxOctets = maxRx
            emit(.dataLengthChanged(handle: handle, maxTxOctets: maxTx, maxRxOctets: maxRx))
        case let .other(subevent, _):
            Log.debug("hci", "unhandled LE subevent 0x\(hex(subevent, digits: 2))")
        }
    }
}
