import BluetoothCore
import HPKE
import JSON

/// The NotifBridge receiver, sans-I/O (docs/NOTIFBRIDGE.md). Fed the
/// phone's writes (after prepared writes are executed, a write is one
/// value), the subscription of the receipts characteristic, the outcome of
/// key storage and time; answers with `pollOutput()` and `nextDeadline`.
public final class NotifBridgeReceiver<Crypto: NotifBridgeCryptography> {
    /// Readiness: sent on subscription, then again every 10 s, at most 6
    /// more times, until the first notification chunk arrives.
    public static var readinessInterval: Int64 { 10_000 }
    public static var readinessResends: Int { 6 }
    /// The `sourceIdentifier` of the last events, for `replyTo` of `displayed`.
    static var rememberedEvents: Int { 64 }

    public private(set) var keyRing = KeyRing()
    public private(set) var isSubscribed = false
    /// ATT_MTU of the link: reverse slices are at most MTU − 3 bytes.
    public private(set) var mtu = 23

    private var keyFrames = FrameAssembler(channel: "notifbridge-keys", capacity: FrameAssembler.keyExchangeCapacity)
    private var notificationFrames = FrameAssembler(channel: "notifbridge-notifications", capacity: FrameAssembler.notificationCapacity)
    private var lastChunk: ChunkID?
    /// The frame being assembled on the notifications characteristic came without the NBW1 wrapper.
    private var unwrappedFrame = false
    private var inbox = Inbox()
    /// When the key file was last asked for: while a replaced generation's
    /// grace runs it is written at least every `KeyRing.graceWriteInterval`.
    private var lastStoreAt: Instant?
    @usableFromInline var outputs = FIFO<NotifBridgeOutput>()
    /// Receipts waiting for each `storeKeys` to be confirmed, in order.
    private var pendingStores = FIFO<[ReceiptID]>()

    private var readinessSent = 0
    private var readinessAt: Instant?
    private var chunkSeen = false
    /// The session of the last envelope opened: reverse commands use it.
    private var lastSession: SessionID?
    private var lastEvents: [(NotificationIdentity, EventID)] = []

    /// Where the ids of reverse commands and the nonces that seal them
    /// come from.
    private let random: RandomSource

    /// `random`: the head unit passes its own (the system's, or a seeded
    /// one in tests); by default, `Crypto.randomBytes`.
    public init(random: RandomSource = RandomSource { Crypto.randomBytes($0) }) {
        self.random = random
    }

    // MARK: output

    /// Inlinable: the core polls on every pass, mostly finding nothing,
    /// and inlined an empty poll is a test instead of a call (see `FIFO`).
    @inlinable public func pollOutput() -> NotifBridgeOutput? { outputs.popFirst() }
    /// Whether `pollOutput()` has anything: the core looks at the link
    /// that carries NotifBridge only then, or when the link was fed.
    @inlinable public var hasOutput: Bool { !outputs.isEmpty }

    public var nextDeadline: Instant? {
        earliest(readinessAt, earliest(inbox.nextExpiry, earliest(keyRing.nextExpiry, nextGraceWrite)))
    }

    private var nextGraceWrite: Instant? {
        guard keyRing.hasGraceRunning else { return nil }
        return lastStoreAt.map { $0.adding(milliseconds: KeyRing.graceWriteInterval) }
    }

    public func handleTimeout(now: Instant) {
        if let at = readinessAt, now >= at {
            sendReadiness(now: now)
        }
        let expired = inbox.expire(now: now)
        if expired > 0 { Log.info("notifbridge", "\(expired) envelope(s) waited \(Inbox.lifetime / 1000) s for a key: dropped") }
        if keyRing.expire(now: now) {
            requestStore(receipts: [], now: now)
        } else if let at = nextGraceWrite, now >= at {
            requestStore(receipts: [], now: now)
        }
    }

    // MARK: keys at start-up

    /// The key file's bytes for `ring` at `now`, checksummed with this receiver's SHA-256.
    public static func keyFile(_ ring: KeyRing, now: Instant) -> [UInt8] { ring.encoded(now: now, sha256: { Crypto.sha256($0) }) }

    /// The key ring in a key file, read as the receiver reads it at start.
    public static func keyRing(inKeyFile bytes: [UInt8], now: Instant) throws(KeyRingCodingError) -> KeyRing {
        try KeyRing(decoding: bytes, now: now, sha256: { Crypto.sha256($0) })
    }

    /// The key file the I/O layer read at start-up. A damaged file is
    /// reported and ignored: the phone must key again.
    public func loadKeys(_ bytes: [UInt8], now: Instant) {
        do throws(KeyRingCodingError) {
            keyRing = try Self.keyRing(inKeyFile: bytes, now: now)
            Log.info("notifbridge", "keys loaded: \(keyRing.generations.count) generation(s), \(keyRing.prepared.count) prepared, "
                + "\(keyRing.deliveries.count) deliveries remembered")
            // The grace used so far now includes this restart: written at once
            // (a grace that ran out with it is over).
            if keyRing.expire(now: now) || keyRing.hasGraceRunning { requestStore(receipts: [], now: now) }
        } catch {
            Log.error("notifbridge", "key file ignored: \(error)")
        }
    }

    /// The outcome of the last `storeKeys` not yet answered.
    public func keysStored(ok: Bool) {
        guard let receipts = pendingStores.popFirst() else {
            Log.warning("notifbridge", "key storage answered with nothing asked")
            return
        }
        guard ok else {
            if !receipts.isEmpty { Log.error("notifbridge", "keys not stored: \(receipts.count) key receipt(s) withheld, the phone will resend") }
            return
        }
        for receipt in receipts { sendFrame(ReversePlaintext.receipt(receipt)) }
    }

    // MARK: link

    public func mtuChanged(_ mtu: Int) { self.mtu = max(23, mtu) }

    /// The phone enabled indications on the receipts characteristic.
    public func subscribed(now: Instant) {
        isSubscribed = true
        readinessSent = 0
        if chunkSeen {
            readinessAt = nil
        } else {
            sendReadiness(now: now)
        }
    }

    public func unsubscribed() {
        isSubscribed = false
        readinessAt = nil
    }

    /// The link is gone: half frames and unsent indications with it.
    public func disconnected() {
        unsubscribed()
        keyFrames.reset()
        notificationFrames.reset()
        lastChunk = nil
        unwrappedFrame = false
        chunkSeen = false
        var kept = FIFO<NotifBridgeOutput>()
        while let output = outputs.popFirst() {
            if case .indicate = output { continue }
            kept.append(output)
        }
        outputs = kept
    }

    /// One value the phone wrote.
    public func written(_ characteristic: NotifBridgeCharacteristic, value: [UInt8], now: Instant) {
        switch characteristic {
        case .keyExchange:
            switch keyFrames.take(value[...]) {
            case .frame(let frame): keyFrame(frame, now: now)
            case .oversized(let bytes, _): Log.warning("notifbridge", "\(bytes)-byte key frame over \(keyFrames.capacity) bytes refused, no receipt")
            case .taken, .dropped: break
            }
        case .notifications:
            if !chunkSeen {
                chunkSeen = true
                readinessAt = nil
            }
            guard let chunk = wrappedChunk(value) else {
                // A writer without the receipts characteristic: plain START,
                // payload values and END, nothing to acknowledge.
                if value.elementsEqual(FrameToken.start) { unwrappedFrame = true }
                notificationStep(notificationFrames.take(value[...]), now: now)
                return
            }
            // The same chunk again: its ack was lost. Acknowledged, not taken twice.
            if chunk.id == lastChunk {
                indicate(ChunkAck.value(for: chunk.id))
                return
            }
            lastChunk = chunk.id
            if chunk.inner.elementsEqual(FrameToken.start) { unwrappedFrame = false }
            let step = notificationFrames.take(chunk.inner)
            // Acknowledged once handled, taken or dropped: an unacknowledged
            // chunk costs the phone 16 s and a disconnection.
            indicate(ChunkAck.value(for: chunk.id))
            notificationStep(step, now: now)
        }
    }

    /// A value is an NBW1 chunk when it has the wrapper, except inside a
    /// frame that began unwrapped: there only a wrapped START counts (a
    /// payload slice may begin with the bytes `NBW1`).
    private func wrappedChunk(_ value: [UInt8]) -> WrappedChunk? {
        guard let chunk = WrappedChunk(value) else { return nil }
        if unwrappedFrame && notificationFrames.isAssembling && !chunk.inner.elementsEqual(FrameToken.start) { return nil }
        return chunk
    }

    private func notificationStep(_ step: FrameStep, now: Instant) {
        switch step {
        case .frame(let frame):
            envelopeFrame(frame, now: now)
        case .oversized(let bytes, let receipt):
            // Receipted so that the phone goes on with the next notification
            // rather than sending this one again and again.
            Log.warning("notifbridge", "\(bytes)-byte envelope frame over the \(notificationFrames.capacity)-byte bound: dropped unread, "
                + (receipt == nil ? "it names no receipt" : "receipted"))
            sendReceipt(receipt)
        case .taken, .dropped:
            break
        }
    }

    // MARK: key exchange

    private func keyFrame(_ frame: [UInt8], now: Instant) {
        let packet: KeyExchangePacket
        do throws(JSONError) {
            packet = try KeyExchangePacket.parse(frame)
        } catch {
            Log.warning("notifbridge", "key packet refused: \(error)")
            return
        }
        switch packet {
        case .prepare(let key, let receipt):
            let result = keyRing.prepare(key)
            Log.info("notifbridge", "prepare \(key.exchangeID): \(result)")
            requestStore(receipts: [receipt], now: now)
        case .activate(let activation, let receipt):
            if let outcome = keyRing.activationOutcome(activation.exchangeID) {
                // Sending it again would not change the answer: acknowledged.
                Log.info("notifbridge", "activate \(activation.exchangeID): \(outcome)")
                requestStore(receipts: [receipt], now: now)
                return
            }
            guard let key = keyRing.preparedKey(for: activation.exchangeID) else {
                Log.warning("notifbridge", "activate of unknown exchange \(activation.exchangeID) refused, no receipt")
                return
            }
            activate(key, activation, receipts: [receipt], now: now)
        case .legacy(let key, let activation, let receipt):
            if let outcome = keyRing.activationOutcome(activation.exchangeID) {
                Log.info("notifbridge", "single-packet key \(activation.exchangeID): \(outcome)")
                requestStore(receipts: receipt.map { [$0] } ?? [], now: now)
                return
            }
            _ = keyRing.prepare(key)
            activate(key, activation, receipts: receipt.map { [$0] } ?? [], now: now)
        }
    }

    private func activate(_ key: PreparedKey, _ activation: Activation, receipts: [ReceiptID], now: Instant) {
        let info = activation.info
        guard let secret = Crypto.exporterSecret(seed: key.seed, publicKey: key.publicKey,
                                                 encapsulatedKey: activation.encapsulatedKey, info: info) else {
            Log.warning("notifbridge", "activate \(activation.exchangeID) refused: the seed does not give the public key or the encapsulated key is bad; no receipt")
            return
        }
        let result = keyRing.activate(KeyGeneration(exchangeID: activation.exchangeID, info: info, exporterSecret: secret), now: now)
        Log.info("notifbridge", "activate \(activation.exchangeID): \(result), \(keyRing.generations.count) generation(s)")
        requestStore(receipts: receipts, now: now)
        retryInbox(now: now)
    }

    private func requestStore(receipts: [ReceiptID], now: Instant) {
        outputs.append(.storeKeys(Self.keyFile(keyRing, now: now)))
        pendingStores.append(receipts)
        lastStoreAt = now
    }

    // MARK: envelopes

    private func envelopeFrame(_ frame: [UInt8], now: Instant) {
        let envelope: NotificationEnvelope
        do throws(JSONError) {
            envelope = try NotificationEnvelope.parse(frame)
        } catch {
            Log.warning("notifbridge", "envelope refused: \(error)")
            return
        }
        if !open(envelope, now: now) {
            if keyRing.awaitsActivation || keyRing.generations.isEmpty {
                Log.info("notifbridge", "envelope of session \(envelope.sessionID) waits for its key (\(inbox.count + 1) waiting)")
                inbox.add(envelope, arrived: now)
            } else {
                Log.warning("notifbridge", "envelope of session \(envelope.sessionID) opens with no key (damaged, or its key expired): refused")
            }
        }
    }

    /// Decrypts and applies an envelope; false when no key opens it. An
    /// envelope taken is remembered in the key file, and its receipt goes
    /// once that is stored: a replay, even after a restart, is acknowledged
    /// and not shown again.
    private func open(_ envelope: NotificationEnvelope, now: Instant) -> Bool {
        let delivery = DeliveryKey(session: envelope.sessionID, digest: Crypto.sha256(envelope.sealed))
        if keyRing.deliveries.contains(delivery) {
            Log.debug("notifbridge", "envelope of session \(envelope.sessionID) again: acknowledged, not shown again")
            requestStore(receipts: envelope.receiptID.map { [$0] } ?? [], now: now)
            return true
        }
        for generation in keyRing.usable(at: now) {
            let key = Crypto.export(exporterSecret: generation.exporterSecret,
                                    context: ExportContext.hostToAccessory(info: generation.info, session: envelope.sessionID))
            let plaintext = Crypto.open(key: key, sealed: envelope.sealed)
            wipeSecret(key)
            guard let plaintext else { continue }
            keyRing.delivered(delivery)
            lastSession = envelope.sessionID
            apply(plaintext)
            requestStore(receipts: envelope.receiptID.map { [$0] } ?? [], now: now)
            return true
        }
        return false
    }

    private func retryInbox(now: Instant) {
        for waiting in inbox.takeAll() where !open(waiting.envelope, now: now) {
            inbox.add(waiting.envelope, arrived: waiting.arrived)
        }
    }

    private func sendReceipt(_ receipt: ReceiptID?) {
        guard let receipt else { return }
        sendFrame(ReversePlaintext.receipt(receipt))
    }

    /// An opened event. A malformed one is still acknowledged: sending it
    /// again would not mend it.
    private func apply(_ plaintext: [UInt8]) {
        let event: BridgeEvent
        do throws(JSONError) {
            event = try BridgeEvent.parse(plaintext)
        } catch {
            Log.warning("notifbridge", "event refused: \(error)")
            return
        }
        switch event.kind {
        case .add(let n), .update(let n):
            guard keyRing.admit(digest(n.identity), sentAt: event.sentAt) else {
                Log.debug("notifbridge", "event for \(n.identity) older than what is known: ignored")
                return
            }
            remember(n.identity, event.id)
            if case .add = event.kind { outputs.append(.event(.add(n))) } else { outputs.append(.event(.update(n))) }
        case .remove(let identity):
            guard keyRing.admit(digest(identity), sentAt: event.sentAt) else {
                Log.debug("notifbridge", "remove for \(identity) older than what is known: ignored")
                return
            }
            outputs.append(.event(.remove(identity)))
        case .removeAll:
            guard keyRing.admitRemoveAll(sentAt: event.sentAt) else {
                Log.debug("notifbridge", "removeAll older than the last one: ignored")
                return
            }
            lastEvents = []
            outputs.append(.event(.removeAll))
        case .commandResult(let result):
            Log.debug("notifbridge", "command result \(event.id): " + (result.map { $0.success ? "success" : "failure" } ?? "unreadable"))
        }
    }

    private func digest(_ identity: NotificationIdentity) -> IdentityDigest {
        IdentityDigest(Crypto.sha256(IdentityDigest.key(of: identity)).prefix(IdentityDigest.length))!
    }

    private func remember(_ identity: NotificationIdentity, _ id: EventID) {
        lastEvents.removeAll { $0.0 == identity }
        lastEvents.append((identity, id))
        if lastEvents.count > NotifBridgeReceiver.rememberedEvents { lastEvents.removeFirst() }
    }

    // MARK: reverse commands

    /// Tells the phone the notification was shown (it waits up to 60 s
    /// after each add).
    public func displayed(_ identity: NotificationIdentity, didAlert: Bool) {
        send(.displayed(didAlert: didAlert), about: identity)
    }

    /// Sends a command about a notification, sealed with the newest key.
    public func send(_ kind: ReverseCommand.Kind, about identity: NotificationIdentity) {
        guard let generation = keyRing.newest, let session = lastSession else {
            Log.info("notifbridge", "no key or session yet: command about \(identity) not sent")
            return
        }
        guard let event = lastEvents.last(where: { $0.0 == identity })?.1 else {
            Log.info("notifbridge", "no event known for \(identity): command not sent")
            return
        }
        guard let id = random.generate(16), id.count == 16, let nonce = random.generate(12), nonce.count == 12 else {
            Log.error("notifbridge", "no random bytes: command about \(identity) not sent")
            return
        }
        let command = ReverseCommand(id: CommandID(random: id), kind: kind, identity: identity, replyTo: event)
        let key = Crypto.export(exporterSecret: generation.exporterSecret,
                                context: ExportContext.accessoryToHost(info: generation.info, session: session))
        let sealed = Crypto.seal(key: key, nonce: nonce, plaintext: command.encoded)
        wipeSecret(key)
        sendFrame(NotificationEnvelope(sessionID: session, sealed: sealed, receiptID: nil).encoded)
    }

    // MARK: indications

    private func sendReadiness(now: Instant) {
        guard isSubscribed, !chunkSeen, readinessSent <= NotifBridgeReceiver.readinessResends else {
            readinessAt = nil
            return
        }
        sendFrame(ReversePlaintext.readiness)
        readinessSent += 1
        readinessAt = readinessSent <= NotifBridgeReceiver.readinessResends
            ? now.adding(milliseconds: NotifBridgeReceiver.readinessInterval) : nil
    }

    private func sendFrame(_ payload: [UInt8]) {
        for value in frameValues(payload, maxValue: mtu - 3) { indicate(value) }
    }

    private func indicate(_ value: [UInt8]) {
        guard isSubscribed else {
            Log.info("notifbridge", "receipts characteristic not subscribed: \(value.count)-byte indication dropped")
            return
        }
        outputs.append(.indicate(value))
    }
}
