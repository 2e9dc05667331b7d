import ATT
import BluetoothCore

/// One ATT bearer (the fixed ATT channel of one LE link), sans-I/O: the GATT
/// client of that link and the GATT server it shows the peer.
///
/// Feeding it: `receive(_:)` every ATT PDU L2CAP delivers for the link;
/// `handleTimeout(now:)` when `nextDeadline` has passed; `close()` when the
/// link goes down. Draining it: `pollTransmit(now:)` until nil (ATT PDUs for
/// L2CAP's ATT channel; `now` starts the 30 s transaction timer of a request
/// when it leaves) and `pollEvent()`. Client requests (see
/// GATTBearer+Client) queue here, one ATT request outstanding at a time, in
/// FIFO order; each returns a `GATTRequestID` and ends as a `.completed`
/// event under it, and the peer's notifications and indications come out as
/// `.valueReceived` events, so the owner routes values and nothing here
/// calls back into it.
public final class GATTBearer {
    /// The ATT transaction timeout (Core Vol 3 Part F 3.3.3).
    public static let transactionTimeout: Int64 = 30_000

    public let handle: ConnectionHandle
    /// The ATT_MTU we ask for and accept: 247 fills one LE data PDU of
    /// 251 bytes with the L2CAP header.
    public let preferredMTU: UInt16
    public private(set) var mtu: Int = attDefaultMTU
    public private(set) var isClosed = false
    /// The server side: answers the peer's discovery of our database.
    public var server: GATTServer
    var queue = FIFO<ClientProcedure>()
    var active: ClientProcedure?
    var activeOpcode: AttributeOpcode?
    var requestSentAt: Instant?
    private var lastRequestID: UInt32 = 0

    struct Outgoing {
        enum Kind { case plain, request, indication }
        let bytes: [UInt8]
        let kind: Kind
    }
    var outbox = FIFO<Outgoing>()
    @usableFromInline var events = FIFO<GATTBearerEvent>()

    var indications = FIFO<(AttributeHandle, [UInt8])>()
    var indicationOutstanding: AttributeHandle?
    var indicationSentAt: Instant?

    public init(handle: ConnectionHandle, database: GATTDatabase, preferredMTU: UInt16 = 247) {
        self.handle = handle
        self.preferredMTU = max(preferredMTU, UInt16(attDefaultMTU))
        self.server = GATTServer(database: database)
    }

    // MARK: output

    /// The next ATT PDU to send on this link's ATT channel.
    public func pollTransmit(now: Instant) -> [UInt8]? {
        guard let outgoing = outbox.popFirst() else { return nil }
        switch outgoing.kind {
        case .request: requestSentAt = now
        case .indication: indicationSentAt = now
        case .plain: break
        }
        return outgoing.bytes
    }

    /// Inlinable: the core polls on every pass, mostly finding nothing,
    /// and inlined an empty poll is a test instead of a call (see `FIFO`).
    @inlinable public func pollEvent() -> GATTBearerEvent? { events.popFirst() }
    /// Whether `pollEvent` has anything.
    @inlinable public var hasEvents: Bool { !events.isEmpty }
    /// The next event, while `hasEvents`: no optional for the caller to
    /// destroy at the end of its loop (see `FIFO.removeFirst`).
    @inlinable public func takeEvent() -> GATTBearerEvent { events.removeFirst() }

    /// When `handleTimeout(now:)` must be called, or nil if nothing waits.
    public var nextDeadline: Instant? {
        guard !isClosed else { return nil }
        return earliest(requestSentAt?.adding(milliseconds: GATTBearer.transactionTimeout),
                        indicationSentAt?.adding(milliseconds: GATTBearer.transactionTimeout))
    }

    public func handleTimeout(now: Instant) {
        guard let deadline = nextDeadline, now >= deadline else { return }
        Log.error("gatt", "ATT transaction timeout on \(handle): the bearer is closed, the link must go")
        finish(with: .timeout)
        events.append(.transactionTimeout)
    }

    /// The link is gone: fail everything still pending.
    public func close() {
        guard !isClosed else { return }
        finish(with: .bearerClosed)
    }

    private func finish(with error: GATTError) {
        isClosed = true
        if let active { complete(active.id, .failure(error)) }
        active = nil
        activeOpcode = nil
        requestSentAt = nil
        while let procedure = queue.popFirst() { complete(procedure.id, .failure(error)) }
        outbox.removeAll()
        indications.removeAll()
        indicationOutstanding = nil
        indicationSentAt = nil
    }

    // MARK: input

    /// One ATT PDU from L2CAP.
    public func receive(_ bytes: [UInt8]) { receive(bytes[...]) }

    /// One ATT PDU from L2CAP, read where it lies in its L2CAP frame: the
    /// value of a notification is the one copy made of it.
    public func receive(_ bytes: ArraySlice<UInt8>) {
        guard !isClosed else {
            Log.debug("gatt", "ATT PDU on closed bearer \(handle) dropped")
            return
        }
        guard let first = bytes.first else {
            Log.warning("gatt", "empty ATT PDU on \(handle) dropped")
            return
        }
        let op = AttributeOpcode(first)
        if op.isResponse {
            receiveResponse(bytes, op)
        } else if op == .handleValueNotification || op == .handleValueIndication {
            receiveValue(bytes, op)
        } else if op == .handleValueConfirmation {
            receiveConfirmation(bytes)
        } else if op == .multipleHandleValueNotification {
            // Only sent to clients that enable it in Client Supported Features; we do not.
            Log.info("gatt", "\(op) on \(handle) ignored")
        } else if op == .exchangeMTURequest {
            receiveMTURequest(bytes)
        } else {
            if let response = server.respond(to: bytes, mtu: mtu) { outbox.append(Outgoing(bytes: response, kind: .plain)) }
            if server.takeBondedStateChange() { events.append(.clientStateChanged) }
        }
    }

    private func receiveMTURequest(_ bytes: ArraySlice<UInt8>) {
        guard case .exchangeMTURequest(let clientRxMTU)? = try? ATTPDU.decode(bytes) else {
            outbox.append(Outgoing(bytes: ATTPDU.errorResponse(request: .exchangeMTURequest, handle: .invalid, error: .invalidPDU).encode(), kind: .plain))
            return
        }
        outbox.append(Outgoing(bytes: ATTPDU.exchangeMTUResponse(serverRxMTU: preferredMTU).encode(), kind: .plain))
        // The new MTU applies after the response (which fits the old one).
        applyMTU(peerRxMTU: clientRxMTU)
    }

    func applyMTU(peerRxMTU: UInt16) {
        let negotiated = max(attDefaultMTU, min(Int(peerRxMTU), Int(preferredMTU)))
        guard negotiated != mtu else { return }
        Log.debug("gatt", "ATT_MTU on \(handle) is \(negotiated)")
        mtu = negotiated
        events.append(.mtuChanged(negotiated))
    }

    private func receiveResponse(_ bytes: ArraySlice<UInt8>, _ op: AttributeOpcode) {
        // Whatever it holds, a response ends the transaction: the procedure
        // is moved out (`take`), not copied and then released.
        guard let sent = activeOpcode, let procedure = active.take() else {
            Log.warning("gatt", "\(op) on \(handle) answers nothing outstanding; dropped")
            return
        }
        activeOpcode = nil
        requestSentAt = nil
        let step: ClientProcedure.Step
        do {
            let pdu = try ATTPDU.decode(bytes)
            if case .errorResponse(let request, let at, let code) = pdu {
                if request == sent {
                    Log.debug("gatt", "\(sent) for \(at) on \(handle) failed: \(code)")
                    step = procedure.step(pdu, mtu: mtu)
                } else {
                    Log.warning("gatt", "error response for \(request) while \(sent) is outstanding on \(handle)")
                    step = .done(.failure(.unexpectedResponse(op)))
                }
            } else if op.rawValue == sent.rawValue &+ 1 {
                if case .exchangeMTUResponse(let serverRxMTU) = pdu { applyMTU(peerRxMTU: serverRxMTU) }
                step = procedure.step(pdu, mtu: mtu)
            } else {
                Log.warning("gatt", "\(op) while \(sent) is outstanding on \(handle)")
                step = .done(.failure(.unexpectedResponse(op)))
            }
        } catch {
            Log.warning("gatt", "\(error) on \(handle)")
            step = .done(.failure(.malformedResponse(op)))
        }
        switch step {
        case .next(let next):
            send(next)
        case .done(let result):
            complete(procedure.id, result)
            startNext()
        }
    }

    private func receiveValue(_ bytes: ArraySlice<UInt8>, _ op: AttributeOpcode) {
        // Opcode, handle, value (Core Vol 3 Part F 3.4.7.1-2), read in
        // place: the value is copied once, into the event, with no PDU
        // value made on the way.
        var r = ByteReader(bytes)
        guard r.skip(1), let handleOfValue = r.u16().map(AttributeHandle.init) else {
            Log.warning("gatt", "malformed \(op) on \(handle) dropped")
            return
        }
        let value = Array(r.rest())
        let isIndication = op == .handleValueIndication
        // Confirm first: the server may not send another indication until then.
        if isIndication { outbox.append(Outgoing(bytes: ATTPDU.handleValueConfirmation.encode(), kind: .plain)) }
        events.append(.valueReceived(handleOfValue, value, isIndication: isIndication))
    }

    private func receiveConfirmation(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count == 1 else {
            Log.warning("gatt", "malformed confirmation on \(handle) dropped")
            return
        }
        guard let confirmed = indicationOutstanding else {
            Log.warning("gatt", "confirmation on \(handle) without an indication outstanding")
            return
        }
        indicationOutstanding = nil
        indicationSentAt = nil
        if confirmed == server.database.valueHandle(of: GATTUUID.serviceChanged) {
            server.serviceChangedConfirmed()
            if server.takeBondedStateChange() { events.append(.clientStateChanged) }
        }
        sendNextIndication()
    }

    // MARK: client queue

    /// A fresh id for a procedure (the binding takes one for an operation
    /// that waits for its discovery before it reaches the bearer).
    func makeRequestID() -> GATTRequestID {
        lastRequestID &+= 1
        return GATTRequestID(lastRequestID)
    }

    /// Reports the end of a request.
    func complete(_ id: GATTRequestID, _ result: GATTClientResult) {
        events.append(.completed(id, result))
    }

    /// Consuming, as the procedure is kept (queued or outstanding) and
    /// not copied.
    @discardableResult
    func enqueue(_ procedure: consuming ClientProcedure) -> GATTRequestID {
        let id = procedure.id
        guard !isClosed else {
            complete(id, .failure(.bearerClosed))
            return id
        }
        if active == nil, queue.isEmpty {
            // Nothing outstanding or waiting (the usual case): started at
            // once instead of queued and taken back out.
            start(procedure)
        } else {
            queue.append(procedure)
            startNext()
        }
        return id
    }

    /// Starts queued procedures until one is outstanding.
    func startNext() {
        while active == nil, !isClosed, !queue.isEmpty {
            start(queue.removeFirst())
        }
    }

    /// Refused for its MTU, sent and completed (a write command completes
    /// as it is queued for sending), or sent and kept outstanding.
    private func start(_ procedure: consuming ClientProcedure) {
        let id = procedure.id
        if let problem = procedure.check(mtu: mtu) {
            complete(id, .failure(problem))
            return
        }
        let request = procedure.request()
        if case .writeCommand = request {
            outbox.append(Outgoing(bytes: request.encode(), kind: .plain))
            complete(id, .written)
            return
        }
        activeOpcode = request.opcode
        outbox.append(Outgoing(bytes: request.encode(), kind: .request))
        active = procedure
    }

    /// The next request of a procedure that takes several.
    private func send(_ procedure: consuming ClientProcedure) {
        let request = procedure.request()
        activeOpcode = request.opcode
        outbox.append(Outgoing(bytes: request.encode(), kind: .request))
        active = procedure
    }

    // MARK: server indications

    /// Tells the client that handles in `range` changed, if it asked for
    /// Service Changed indications. Returns whether one was queued.
    @discardableResult
    public func indicateServiceChanged(_ range: AttributeHandleRange = .all) -> Bool {
        guard let valueHandle = server.database.valueHandle(of: GATTUUID.serviceChanged) else { return false }
        var w = ByteWriter()
        w.u16(range.start.value)
        w.u16(range.end.value)
        return indicate(w.bytes, at: valueHandle)
    }

    /// Indicates `value` (cut to ATT_MTU − 3) on a characteristic of our
    /// database, if the client enabled indications in its CCCD; indications
    /// go one at a time, each after the previous confirmation. Returns
    /// whether it was queued.
    @discardableResult
    public func indicate(_ value: [UInt8], at valueHandle: AttributeHandle) -> Bool {
        guard !isClosed, server.clientConfiguration(forValue: valueHandle).contains(.indication) else { return false }
        indications.append((valueHandle, value))
        sendNextIndication()
        return true
    }

    private func sendNextIndication() {
        guard indicationOutstanding == nil, !isClosed, let (valueHandle, value) = indications.popFirst() else { return }
        indicationOutstanding = valueHandle
        let pdu = ATTPDU.handleValueIndication(valueHandle, value: Array(value.prefix(mtu - 3)))
        outbox.append(Outgoing(bytes: pdu.encode(), kind: .indication))
    }
}
