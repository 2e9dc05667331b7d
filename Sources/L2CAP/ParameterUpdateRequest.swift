import BluetoothCore

/// How the central answered our Connection Parameter Update Request.
public enum ParameterUpdateOutcome: Hashable {
    /// The central takes them; it starts the link-layer update, and the
    /// host reports `.connectionUpdated` when the new ones are in force.
    case accepted
    case rejected
    /// Command Reject: the central does not know the request.
    case notUnderstood
    /// No response within `L2CAPLayer.parameterUpdateTimeoutMilliseconds`.
    case noAnswer
}

public struct ParameterUpdateAnswer: Hashable {
    public var handle: ConnectionHandle
    public var parameters: ConnectionParameters
    public var outcome: ParameterUpdateOutcome
}

/// The peripheral side of the connection parameter update (Core Vol 3
/// Part A 4.20): we ask, the central answers. We use the L2CAP request
/// rather than HCI LE Connection Update as peripheral: the link-layer
/// procedure needs the Connection Parameters Request feature on both
/// controllers, while every central (iOS included) answers the L2CAP
/// request, and Apple's guidelines are written for it.
extension L2CAPLayer {
    /// The signaling response timeout (RTX) we allow the central: the
    /// specification allows 1-60 s.
    public static let parameterUpdateTimeoutMilliseconds: Int64 = 30_000

    @usableFromInline struct PendingParameterUpdate {
        var identifier: UInt8
        var parameters: ConnectionParameters
        @usableFromInline var deadline: Instant
    }

    /// Asks the central of a peripheral link for `parameters`. False (and
    /// a log line) when the link is not ours as peripheral, one request is
    /// still unanswered, or the set breaks Apple's rules (iOS would refuse it).
    @discardableResult
    public mutating func requestConnectionParameters(_ parameters: ConnectionParameters, on handle: ConnectionHandle,
                                                     now: Instant) -> Bool {
        let link = links[handle]
        let refusal: String?
        if link?.role != .peripheral {
            refusal = "not a link where we are peripheral"
        } else if pendingUpdates[handle] != nil {
            refusal = "the last one is unanswered"
        } else {
            refusal = parameters.appleGuidelineViolation.map { "\(parameters) has \($0)" }
        }
        guard let link, refusal == nil else {
            Log.warning("l2cap", "parameter update request on \(handle) not sent: " + (refusal ?? ""))
            return false
        }
        lastIdentifier = lastIdentifier == UInt8.max ? 1 : lastIdentifier + 1
        pendingUpdates[handle] = PendingParameterUpdate(identifier: lastIdentifier, parameters: parameters,
                                                        deadline: now.adding(milliseconds: L2CAPLayer.parameterUpdateTimeoutMilliseconds))
        var w = ByteWriter(capacity: 8)
        w.u16(parameters.intervalMin)
        w.u16(parameters.intervalMax)
        w.u16(parameters.peripheralLatency)
        w.u16(parameters.supervisionTimeout)
        Log.info("l2cap", "asking the central of \(handle) for \(parameters)")
        sendCommand(.connectionParameterUpdateRequest, lastIdentifier, w.bytes, link: link)
        return true
    }

    /// The answers to our requests, oldest first.
    /// Inlinable, like `pollEvent`: the core polls on every pass, mostly finding nothing.
    @inlinable public mutating func pollParameterUpdateAnswer() -> ParameterUpdateAnswer? { updateAnswers.popFirst() }

    /// When `handleTimeout` is due: the oldest unanswered request.
    /// Inlinable: the shell asks once per wake-up, and called, the layer
    /// is copied out of the core to be asked.
    @inlinable public var nextDeadline: Instant? {
        var deadline: Instant?
        for pending in pendingUpdates.values { deadline = earliest(deadline, pending.deadline) }
        return deadline
    }

    public mutating func handleTimeout(now: Instant) {
        for (handle, pending) in pendingUpdates where pending.deadline <= now {
            Log.warning("l2cap", "no answer to the parameter update request on \(handle)")
            finishParameterUpdate(handle, .noAnswer)
        }
    }

    /// A response or Command Reject with `identifier` on `link`: true when
    /// it answered our request (and was taken), false when it answers nothing.
    mutating func answerParameterUpdate(_ code: SignalingCode, _ identifier: UInt8, data: inout ByteReader,
                                        link: L2CAPLink) -> Bool {
        guard let pending = pendingUpdates[link.handle], pending.identifier == identifier else { return false }
        if code == .commandReject {
            Log.info("l2cap", "the central of \(link.handle) does not understand parameter update requests")
            finishParameterUpdate(link.handle, .notUnderstood)
            return true
        }
        guard let result = data.u16(), data.isAtEnd else {
            Log.warning("l2cap", "malformed \(code) on \(link.handle) taken as a rejection")
            finishParameterUpdate(link.handle, .rejected)
            return true
        }
        let accepted = result == ConnectionParameterUpdateResult.accepted.rawValue
        Log.info("l2cap", "the central of \(link.handle) \(accepted ? "accepted" : "rejected") \(pending.parameters)")
        finishParameterUpdate(link.handle, accepted ? .accepted : .rejected)
        return true
    }

    private mutating func finishParameterUpdate(_ handle: ConnectionHandle, _ outcome: ParameterUpdateOutcome) {
        guard let pending = pendingUpdates.removeValue(forKey: handle) else { return }
        updateAnswers.append(ParameterUpdateAnswer(handle: handle, parameters: pending.parameters, outcome: outcome))
    }
}
