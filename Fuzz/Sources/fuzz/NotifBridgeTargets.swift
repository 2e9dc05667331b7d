import BluetoothCore
import JSON
@testable import NotifBridge

/// A stand-in for the NotifBridge cryptography: fast, deterministic, and
/// round-tripping (what is fuzzed is the protocol layer, not the ciphers).
/// The "public key" of a seed is the seed's expansion; "sealing" XORs a
/// keystream and appends a 16-byte check.
enum FuzzBridgeCrypto: NotifBridgeCryptography {
    nonisolated(unsafe) static var counter: UInt64 = 0

    static func digest(_ bytes: [UInt8], count: Int = 32) -> [UInt8] {
        var rng = SplitMix(seed: SplitMix.seed(bytes))
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    static func publicKey(seed: [UInt8]) -> [UInt8] { digest(seed, count: PreparedKey.publicKeyLength) }

    static func exporterSecret(seed: [UInt8], publicKey: [UInt8], encapsulatedKey: [UInt8], info: [UInt8]) -> [UInt8]? {
        guard publicKey == self.publicKey(seed: seed) else { return nil }
        return digest(seed + encapsulatedKey + info)
    }

    static func export(exporterSecret: [UInt8], context: [UInt8]) -> [UInt8] { digest(exporterSecret + context) }

    static func open(key: [UInt8], sealed: [UInt8]) -> [UInt8]? {
        guard sealed.count >= 28 else { return nil }
        let nonce = Array(sealed[0..<12])
        let body = Array(sealed[12..<(sealed.count - 16)])
        guard digest(key + nonce + body, count: 16) == Array(sealed.suffix(16)) else { return nil }
        return zip(body, digest(key + nonce, count: body.count)).map { $0 ^ $1 }
    }

    static func seal(key: [UInt8], plaintext: [UInt8]) -> [UInt8] { seal(key: key, nonce: randomBytes(12), plaintext: plaintext) }

    static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) -> [UInt8] {
        let body = zip(plaintext, digest(key + nonce, count: plaintext.count)).map { $0 ^ $1 }
        return nonce + body + digest(key + nonce + body, count: 16)
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] { digest(bytes) }

    static func randomBytes(_ count: Int) -> [UInt8] {
        counter += 1
        return digest([UInt8(truncatingIfNeeded: counter), UInt8(truncatingIfNeeded: counter >> 8)], count: count)
    }
}

/// Any bytes as JSON: what parses must write back and parse to the same
/// value; base64 decodes only what it encodes back to the same text.
enum JSONTarget {
    static let target = FuzzTarget(name: "json", run: run, seeds: seeds)

    static func run(_ data: [UInt8]) {
        let limits = JSONLimits(maxSize: 64 * 1024, maxDepth: 16, maxElements: 2048)
        if let value = try? JSONParser.parse(data, limits: limits) {
            let written = value.encoded
            let again = try? JSONParser.parse(written, limits: JSONLimits(maxSize: 1 << 20, maxDepth: 16, maxElements: 2048))
            invariant(again == value, "a parsed value does not read back from what it writes")
            invariant(written.count <= data.count * 6 + 2, "writing grew the text beyond escaping")
        }
        let text = String(decoding: data, as: UTF8.self)
        if let bytes = Base64.decode(text) {
            invariant(Base64.encode(bytes) == text, "base64 decoded a text it does not encode to")
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        [
            ("object", Array(#"{"a":[1,-2.5e3,true,false,null],"b":{"c":"\u00e9\/\n"}}"#.utf8)),
            ("surrogates", Array(#"["\ud834\udd1e","\uD83D\uDE00"]"#.utf8)),
            ("event", NotifBridgeTarget.event),
            ("base64", Array("Zm9vYmE=".utf8)),
            ("deep", Array(String(repeating: "[", count: 20).utf8)),
            ("utf8", Array("[\"€𝄞\"]".utf8)),
            ("bad-utf8", [0x22, 0xED, 0xA0, 0x80, 0x22]),
        ]
    }
}

/// Key-exchange packets, envelopes, events and the key file, each parsed
/// from any bytes (the first byte picks which). What is accepted must
/// hold to the protocol's sizes; the key file has one encoding.
enum KeyPacketTarget {
    static let target = FuzzTarget(name: "notifbridge-messages", run: run, seeds: seeds)

    static func run(_ data: [UInt8]) {
        guard let which = data.first else { return }
        let body = Array(data.dropFirst())
        switch which % 4 {
        case 0:
            switch try? KeyExchangePacket.parse(body) {
            case .prepare(let key, _)?, .legacy(let key, _, _)?:
                invariant(key.seed.count == 32 && key.publicKey.count == 1216, "a key pair of the wrong size")
            case .activate(let activation, _)?:
                invariant(activation.encapsulatedKey.count == 1120, "an encapsulated key of the wrong size")
            case nil:
                break
            }
        case 1:
            if let envelope = try? NotificationEnvelope.parse(body) {
                invariant(envelope.sealed.count >= 28, "an envelope shorter than nonce and tag")
                invariant((try? NotificationEnvelope.parse(envelope.encoded)) == envelope, "an envelope does not read back")
            }
        case 2:
            if let event = try? BridgeEvent.parse(body) {
                if case .add(let n) = event.kind { invariant(event.identity == n.identity, "an add about another notification") }
            }
        default:
            // The checksum is added here, so the fuzzer explores the structure behind it.
            let file = body + FuzzBridgeCrypto.sha256(body).prefix(8)
            let now = Instant(milliseconds: 1000)
            if let ring = try? KeyRing(decoding: file, now: now, sha256: FuzzBridgeCrypto.sha256) {
                // Written again and read back, it is the same ring (the grace used grows by the restart's share).
                let again = try? KeyRing(decoding: ring.encoded(now: now, sha256: FuzzBridgeCrypto.sha256), now: now, sha256: FuzzBridgeCrypto.sha256)
                invariant(again.map { $0.prepared == ring.prepared && $0.spent == ring.spent && $0.deliveries == ring.deliveries
                    && $0.ledger == ring.ledger && $0.generations.map { $0.exchangeID } == ring.generations.map { $0.exchangeID } } == true,
                          "a key file does not read back as written")
                invariant(ring.generations.count <= KeyRing.maxGenerations && ring.prepared.count <= KeyRing.maxPrepared,
                          "a key file over the ring's bounds loaded")
            }
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        let phone = NotifBridgeTarget.phone
        var ring = KeyRing()
        _ = ring.prepare(phone.preparedKey(1))
        _ = ring.activate(KeyGeneration(exchangeID: phone.exchange(1), info: phone.info, exporterSecret: [UInt8](repeating: 1, count: 32)),
                          now: Instant(milliseconds: 0))
        _ = ring.activate(KeyGeneration(exchangeID: phone.exchange(2), info: phone.info, exporterSecret: [UInt8](repeating: 2, count: 32)),
                          now: Instant(milliseconds: 0))
        let file = ring.encoded(now: Instant(milliseconds: 0), sha256: FuzzBridgeCrypto.sha256)
        return [
            ("prepare", [0] + phone.prepare(1)),
            ("activate", [0] + phone.activate(1)),
            ("envelope", [1] + phone.envelope(NotifBridgeTarget.event, exchange: 1)),
            ("event", [2] + NotifBridgeTarget.event),
            ("remove", [2] + Array(#"{"version":3,"id":"e","kind":"remove","sentAt":2,"identity":{"sourceIdentifier":"a","notificationIdentifier":"b"}}"#.utf8)),
            ("key-file", [3] + Array(file.dropLast(8))),
            ("key-file-v1", [3] + Array("NBKR".utf8) + [1, 0, 1] + phone.exchange(1).uuid.fullLittleEndian + [1, UInt8(phone.info.count), 0]
                + phone.info + [UInt8](repeating: 1, count: 32)),
            ("command-result", [2] + Array(#"{"version":3,"id":"3C4D5E6F-7A8B-4C2D-9E3F-4A5B6C7D8E9F","kind":"commandResult","result":{"commandID":"4D5E6F7A-8B9C-4D3E-8F4A-5B6C7D8E9FA0","success":false,"message":"no such notification"},"sentAt":786001402}"#.utf8)),
        ]
    }
}

/// The receiver driven by a script: values written to either
/// characteristic (whole frames cut anywhere, with or without the NBW1
/// wrapper), subscriptions, link loss, MTU changes, key storage that fails,
/// `displayed`, and time.
enum NotifBridgeTarget {
    static let target = FuzzTarget(name: "notifbridge-receiver", run: run, seeds: seeds)

    static let phone = BridgePhone()
    /// As the app's JSONEncoder writes it: every member in declaration order, actions' types as enum objects.
    static let event = Array(#"{"version":3,"id":"6F1C2B0A-3D4E-4F50-8A1B-2C3D4E5F6071","kind":"add","notification":{"title":"200 m","subtitle":"","body":"Turn left","sourceName":"Google Maps","sourceIdentifier":"com.google.Maps","notificationIdentifier":"n1","threadIdentifier":"","hasSound":false,"attributes":2,"actions":[{"id":"a","title":"OK","type":{"background":{}}},{"id":"r","title":"Reply","type":{"textInput":{"placeholder":"Message"}}},{"id":"d","title":"Close","type":{"dismiss":{}}},{"id":"u","title":"Later","type":{"unknown":{"_0":255}}}],"sourceIcon":"iVBORw0KGgo=","contextIcon":"","attachments":[{"id":"A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D","uti":"public.jpeg","data":"\/9j\/4AAQ"}],"receivedAt":786001234.5,"deliveryDate":786001234,"displayDate":786001234,"displayDateIsAllDay":false,"summary":"","shouldAlert":true,"isSuppressedByFocus":false,"ignoreSilentMode":false,"alertKind":"incomingCall","isCleared":false},"sentAt":786001234.75}"#.utf8)

    static func run(_ data: [UInt8]) {
        var receiver = NotifBridgeReceiver<FuzzBridgeCrypto>()
        /// The last key file stored: what a restart loads.
        var stored: [UInt8]?
        var input = FuzzInput(data)
        var now = Instant(milliseconds: 1_000)
        var storeSucceeds = true
        var operations = 0
        while !input.isAtEnd, operations < 400 {
            operations += 1
            var written: [ChunkID] = []
            let op = input.byte() % 11
            switch op {
            case 0, 1:
                let value = input.chunk()
                if op == 1, let chunk = WrappedChunk(value) { written.append(chunk.id) }
                receiver.written(op == 0 ? .keyExchange : .notifications, value: value, now: now)
            case 2:
                // A whole frame, cut into values of a chosen size.
                let notifications = input.bool()
                let size = Int(input.byte()) + 1
                let length = Int(input.u16()) % 4096
                let payload = input.bytes(length)
                for (i, value) in frameValues(payload, maxValue: size).enumerated() {
                    if notifications {
                        let id = [UInt8](repeating: UInt8(truncatingIfNeeded: operations), count: 14) + [UInt8(i >> 8 & 0xFF), UInt8(i & 0xFF)]
                        written.append(ChunkID(id[...])!)
                        receiver.written(.notifications, value: WrappedChunk.magic + id + value, now: now)
                    } else {
                        receiver.written(.keyExchange, value: value, now: now)
                    }
                }
            case 3: receiver.subscribed(now: now)
            case 4: receiver.unsubscribed()
            case 5: receiver.disconnected()
            case 6: receiver.mtuChanged(Int(input.u16()))
            case 7: storeSucceeds.toggle()
            case 8: receiver.displayed(NotificationIdentity(sourceIdentifier: "com.google.Maps", notificationIdentifier: "n1"), didAlert: input.bool())
            case 10:
                // A restart: a new receiver on a new clock, loading the last file stored.
                receiver = NotifBridgeReceiver<FuzzBridgeCrypto>()
                now = Instant(milliseconds: Int64(input.u16()))
                if let stored {
                    receiver.loadKeys(stored, now: now)
                    let expected = try? KeyRing(decoding: stored, now: now, sha256: FuzzBridgeCrypto.sha256)
                    invariant(receiver.keyRing.spent == expected?.spent && receiver.keyRing.deliveries == expected?.deliveries
                              && receiver.keyRing.ledger == expected?.ledger, "a restart does not load what was stored")
                }
            default:
                now = now.adding(milliseconds: Int64(input.u16()) * 100)
                var rounds = 0
                while let deadline = receiver.nextDeadline, deadline <= now, rounds < 100 {
                    receiver.handleTimeout(now: now)
                    rounds += 1
                }
                invariant(rounds < 100, "handleTimeout does not move the deadline")
            }
            while let output = receiver.pollOutput() {
                switch output {
                case .indicate(let value):
                    invariant(receiver.isSubscribed, "an indication without a subscription")
                    invariant(value.count <= receiver.mtu - 3, "an indication of \(value.count) bytes at MTU \(receiver.mtu)")
                    if ChunkAck.isAck(value) {
                        invariant(written.contains { ChunkAck.value(for: $0) == value }, "an ack for a chunk not written")
                    }
                case .storeKeys(let bytes):
                    invariant((try? KeyRing(decoding: bytes, now: now, sha256: FuzzBridgeCrypto.sha256)) != nil,
                              "a key file the receiver asked to store does not load")
                    if storeSucceeds { stored = bytes }
                    receiver.keysStored(ok: storeSucceeds)
                case .event:
                    break
                }
            }
            invariant(receiver.keyRing.generations.count <= KeyRing.maxGenerations, "more than 4 generations")
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        var s = Script()
        s.byte(3)                                // subscribe
        frame(&s, notifications: false, size: 244, phone.prepare(1))
        frame(&s, notifications: false, size: 20, phone.activate(1))
        frame(&s, notifications: true, size: 200, phone.envelope(event, exchange: 1))
        frame(&s, notifications: true, size: 200, phone.envelope(event, exchange: 1))   // duplicate
        s.byte(8); s.byte(1)                     // displayed
        s.byte(9); s.u16(3000)                   // 300 s
        let session = s.bytes

        var early = Script()
        early.byte(3)
        frame(&early, notifications: false, size: 244, phone.prepare(2))
        frame(&early, notifications: true, size: 200, phone.envelope(event, exchange: 2))
        early.byte(7)                            // the store fails
        frame(&early, notifications: false, size: 244, phone.activate(2))
        early.byte(7)
        frame(&early, notifications: false, size: 244, phone.activate(2))
        early.byte(9); early.u16(1000)

        var rotation = Script()
        rotation.byte(3)
        rotation.byte(6); rotation.u16(247)
        for n in 1...5 {
            frame(&rotation, notifications: false, size: 244, phone.prepare(n))
            frame(&rotation, notifications: false, size: 244, phone.activate(n))
        }
        frame(&rotation, notifications: true, size: 200, phone.envelope(event, exchange: 4))
        rotation.byte(9); rotation.u16(3001)
        frame(&rotation, notifications: true, size: 200, phone.envelope(event, exchange: 4))

        var readiness = Script()
        readiness.byte(3)
        for _ in 0..<8 { readiness.byte(9); readiness.u16(100) }
        readiness.byte(1); readiness.chunk(Array("NBW1".utf8) + [UInt8](repeating: 0, count: 16) + FrameToken.start)
        readiness.byte(5)
        readiness.byte(1); readiness.chunk(FrameToken.end)

        // A writer without the receipts characteristic: plain values (255 bytes, the most a script chunk holds).
        var unwrapped = Script()
        unwrapped.byte(3)
        frame(&unwrapped, notifications: false, size: 244, phone.prepare(3))
        frame(&unwrapped, notifications: false, size: 244, phone.activate(3))
        for value in frameValues(phone.envelope(event, exchange: 3), maxValue: 255) { unwrapped.byte(1); unwrapped.chunk(value) }

        // Keys, a notification, a rotation, then a restart: the same envelope
        // and the old activate again, and time past the grace.
        var restart = Script()
        restart.byte(3)
        frame(&restart, notifications: false, size: 244, phone.prepare(4))
        frame(&restart, notifications: false, size: 244, phone.activate(4))
        frame(&restart, notifications: true, size: 200, phone.envelope(event, exchange: 4))
        frame(&restart, notifications: false, size: 244, phone.prepare(5))
        frame(&restart, notifications: false, size: 244, phone.activate(5))
        restart.byte(10); restart.u16(50)
        restart.byte(3)
        frame(&restart, notifications: true, size: 200, phone.envelope(event, exchange: 4))
        frame(&restart, notifications: false, size: 244, phone.activate(4))
        restart.byte(9); restart.u16(3001)

        return [("session", session), ("envelope-before-key", early.bytes), ("rotation", rotation.bytes), ("readiness", readiness.bytes),
                ("unwrapped", unwrapped.bytes), ("restart", restart.bytes)]
    }

    static func frame(_ s: inout Script, notifications: Bool, size: Int, _ payload: [UInt8]) {
        s.byte(2)
        s.byte(notifications ? 1 : 0)
        s.byte(UInt8(size - 1))
        s.u16(UInt16(payload.count))
        s.raw(payload)
    }
}

/// The phone's side, for the seeds.
struct BridgePhone {
    let info = Array("XWing-Version1-ID".utf8)
    let session = "5D1F0C3A-1111-4222-8333-444455556666"

    func uuid(_ n: Int) -> String { "00000000-0000-4000-8000-" + hex(UInt64(n), digits: 12).uppercased() }
    func exchange(_ n: Int) -> ExchangeID { ExchangeID(BluetoothUUID(uuid(n))!) }
    func seed(_ n: Int) -> [UInt8] { [UInt8](repeating: UInt8(n), count: 32) }
    func preparedKey(_ n: Int) -> PreparedKey {
        PreparedKey(exchangeID: exchange(n), seed: seed(n), publicKey: FuzzBridgeCrypto.publicKey(seed: seed(n)))
    }
    func encapsulatedKey(_ n: Int) -> [UInt8] { FuzzBridgeCrypto.digest([UInt8(n), 0xEC], count: 1120) }

    func prepare(_ n: Int) -> [UInt8] {
        JSONValue.object([
            JSONMember("phase", .string("prepare")), JSONMember("exchangeID", .string(uuid(n))),
            JSONMember("receiptID", .string(uuid(100 + n))),
            JSONMember("publicKey", .string(Base64.encode(FuzzBridgeCrypto.publicKey(seed: seed(n))))),
            JSONMember("privateKeySeed", .string(Base64.encode(seed(n)))),
        ]).encoded
    }

    func activate(_ n: Int) -> [UInt8] {
        JSONValue.object([
            JSONMember("phase", .string("activate")), JSONMember("exchangeID", .string(uuid(n))),
            JSONMember("receiptID", .string(uuid(200 + n))),
            JSONMember("encapsulatedKey", .string(Base64.encode(encapsulatedKey(n)))),
            JSONMember("identifier", .string("ID")), JSONMember("ciphersuite", .string("XWing")), JSONMember("version", .string("Version1")),
        ]).encoded
    }

    func envelope(_ plaintext: [UInt8], exchange n: Int) -> [UInt8] {
        let secret = FuzzBridgeCrypto.exporterSecret(seed: seed(n), publicKey: FuzzBridgeCrypto.publicKey(seed: seed(n)),
                                                     encapsulatedKey: encapsulatedKey(n), info: info)!
        let key = FuzzBridgeCrypto.export(exporterSecret: secret, context: info + Array(("-HostToAccessory-" + session).utf8))
        let sealed = FuzzBridgeCrypto.seal(key: key, nonce: [UInt8](repeating: 3, count: 12), plaintext: plaintext)
        return NotificationEnvelope(sessionID: SessionID(BluetoothUUID(session)!), sealed: sealed,
                                    receiptID: ReceiptID(BluetoothUUID(uuid(50 + n))!)).encoded
    }
}
