import BluetoothCore
import GhostDrop

/// The GhostDrop receiver on one channel, against a sender that is honest
/// when the script says so (hello, verify, verifyAck, sealed metadata,
/// chunks, complete, each possibly with one byte flipped) and raw bytes
/// otherwise, cut anywhere; the driver's confirm / reject / cancel, link
/// loss, time. Whatever comes: every frame sent decodes, writes are in order
/// and within the file, a completed file has all its bytes, and nothing
/// comes out after the session ended.
enum GhostDropTarget {
    static let target = FuzzTarget(name: "ghostdrop-receiver", run: run, seeds: seeds)

    static let file: [UInt8] = (0..<700).map { UInt8(truncatingIfNeeded: $0 &* 13) }
    static let chunkSize = 100

    static func seeded(_ seed: UInt8) -> RandomSource {
        var counter: UInt8 = 0
        return RandomSource { count in
            counter &+= 1
            return (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37) ^ seed ^ counter }
        }
    }

    /// The honest sender's side of one session.
    struct Sender {
        let ephemeral = try! GhostEphemeral(random: seeded(0x5A))
        let session = GhostUUID(bytes: Array(0..<16))!
        let transfer = GhostUUID(bytes: Array(16..<32))!
        var cipher: GhostCipher?
        var secrets: GhostSessionSecrets?
        var control: UInt64 = 0

        var hello: GhostFrame {
            .hello(GhostHello(sessionID: session, deviceID: transfer, ephemeralPublicKey: ephemeral.publicKey, nonce: ephemeral.nonce,
                              capabilities: GhostCapabilities(supportsL2CAP: true)))
        }

        mutating func read(_ frame: GhostFrame) {
            guard case .helloAck(let ack) = frame, cipher == nil,
                  let s = try? GhostHandshake.secrets(local: ephemeral, sessionID: session, remoteKey: ack.ephemeralPublicKey,
                                                      remoteNonce: ack.nonce) else { return }
            secrets = s
            cipher = GhostCipher(secrets: s, role: .sender)
        }

        mutating func sealed(_ frame: GhostFrame) -> GhostFrame? {
            guard let cipher else { return nil }
            defer { control += 1 }
            return .encrypted(sequence: control, combined: cipher.seal(GhostFrameCodec.encode(frame), sequence: control))
        }

        func chunk(_ k: UInt64) -> GhostFrame? {
            guard let cipher, Int(k) * GhostDropTarget.chunkSize < GhostDropTarget.file.count else { return nil }
            let start = Int(k) * GhostDropTarget.chunkSize
            let plain = Array(GhostDropTarget.file[start..<min(start + GhostDropTarget.chunkSize, GhostDropTarget.file.count)])
            return .data(sequence: k, payload: cipher.seal(plain, sequence: k))
        }
    }

    static var metadata: GhostFileMetadata {
        GhostFileMetadata(transferID: GhostUUID(bytes: Array(16..<32))!, filename: "headunit.conf", size: Int64(file.count),
                          mimeType: "text/plain", sha256: digest(file), chunkSize: chunkSize)
    }

    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        let d = GhostDigest()
        d.update(bytes)
        return d.finish()
    }

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let receiver = GhostReceiver(random: seeded(0xA5))
        var sender = Sender()
        var now = Instant(milliseconds: 0)
        var written: [UInt8] = []
        var finished = false

        func drain() {
            while let bytes = receiver.pollFrame() {
                invariant(!finished, "a frame after the session ended")
                guard let frame = try? GhostFrameCodec.decode(bytes) else { return invariant(false, "a frame that does not decode") }
                sender.read(frame)
            }
            while let event = receiver.pollEvent() {
                invariant(!finished, "an event after the session ended")
                switch event {
                case .incoming(let m, let start):
                    invariant(start == 0, "a resume without a resume state")
                    invariant(m.size <= receiver.configuration.maxFileSize, "a file above the size cap")
                    written = []
                case .write(let offset, let bytes):
                    invariant(Int(offset) == written.count, "a write at \(offset) after \(written.count) bytes")
                    written += bytes
                    invariant(written.count <= file.count, "more bytes than the file")
                case .completed(let m):
                    invariant(written.count == Int(m.size) && digest(written) == m.sha256, "completed without the whole file")
                    finished = true
                case .ended:
                    finished = true
                default: break
                }
            }
        }

        while !input.isAtEnd {
            now = now.adding(milliseconds: Int64(input.byte()) * 100)
            var frame: GhostFrame?
            switch input.byte() % 12 {
            case 0: frame = sender.hello
            case 1: frame = sender.secrets.map { .verify(GhostVerification(transcriptHash: $0.transcriptHash, sasCode: $0.sas)) }
            case 2: frame = .verifyAck(accepted: input.byte() != 0)
            case 3: frame = sender.sealed(.metadata(metadata))
            case 4: frame = sender.chunk(UInt64(input.byte() % 8))
            case 5: frame = sender.sealed(.complete(GhostComplete(transferID: metadata.transferID, sha256: metadata.sha256)))
            case 6: receiver.receive(input.chunk(), now: now)
            case 7: receiver.confirm(now: now)
            case 8: receiver.reject(now: now)
            case 9: receiver.cancel(reason: "fuzz", now: now)
            case 10: receiver.handleTimeout(now: now)
            default: if input.byte() == 0 { receiver.handleDisconnect() } else { frame = sender.sealed(.ping(id: 1)) }
            }
            if let frame {
                var bytes = GhostFrameCodec.encode(frame)
                // One byte flipped, at the input's choice (0: none).
                let flip = Int(input.u16())
                if flip > 0 { bytes[flip % bytes.count] ^= input.byte() | 1 }
                let cut = Int(input.byte()) % (bytes.count + 1)
                receiver.receive(Array(bytes[..<cut]), now: now)
                receiver.receive(Array(bytes[cut...]), now: now)
            }
            drain()
            if let deadline = receiver.nextDeadline { invariant(!finished && deadline > Instant(milliseconds: -1), "a deadline after the end") }
        }
    }

    /// An honest transfer from hello to complete, and the same with one
    /// base64 character of chunk 3's ciphertext changed.
    static func seeds() -> [(String, [UInt8])] {
        func session(tamper: Bool) -> [UInt8] {
            var s = Script()
            func op(_ code: UInt8, _ extra: [UInt8] = [], flip: UInt16 = 0) {
                s.byte(1); s.byte(code); s.raw(extra); s.u16(flip); if flip > 0 { s.byte(0x01) }; s.byte(7)
            }
            op(0)
            op(1)
            op(2, [1])
            s.byte(1); s.byte(7)
            op(3)
            for k: UInt8 in 0..<7 { op(4, [k], flip: tamper && k == 3 ? 200 : 0) }
            op(5)
            return s.bytes
        }
        return [("honest-transfer", session(tamper: false)), ("tampered-chunk", session(tamper: true))]
    }
}
