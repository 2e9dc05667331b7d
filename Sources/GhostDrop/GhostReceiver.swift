import BluetoothCore

/// Limits and timers of a receiver.
public struct GhostReceiverConfiguration {
    /// What the capabilities characteristic says (chunk and window limits).
    public var capabilities: GhostCapabilities
    /// Files above this are refused at `metadata`.
    public var maxFileSize: Int64
    /// Chunks above this are refused at `metadata` (the reference's chunk is
    /// at most the sender's maxChunk, 180 by default).
    public var maxChunkSize: Int
    /// How long the code waits for the driver.
    public var confirmTimeout: Int64
    /// How long the sender may stay silent once the code is confirmed.
    public var idleTimeout: Int64

    public init(capabilities: GhostCapabilities = GhostCapabilities(supportsL2CAP: true), maxFileSize: Int64 = 256 * 1024 * 1024,
                maxChunkSize: Int = 64 * 1024, confirmTimeout: Int64 = 120_000, idleTimeout: Int64 = 30_000) {
        self.capabilities = capabilities
        self.maxFileSize = maxFileSize
        self.maxChunkSize = maxChunkSize
        self.confirmTimeout = confirmTimeout
        self.idleTimeout = idleTimeout
    }
}

/// One GhostDrop receiving session on one connection, sans-I/O. Fed the
/// channel's bytes (`receive(_:now:)`), whole frames (`receive(frame:now:)`,
/// for a GATT reassembler), the driver's answer (`confirm`, `reject`,
/// `cancel`) and time (`handleTimeout`); polled for frames to send
/// (`pollFrame`) and events (`pollEvent`). `resumeState` is what to keep
/// across a link loss or a restart.
///
/// Order on the wire (SessionActor.swift): hello → helloAck; verify (the
/// sender's hash and code, in the clear); verifyAck both ways; then the
/// sender's `metadata` sealed, our `resume` in the clear when continuing,
/// `data` chunks (their payload sealed), our `ack` per chunk, `complete`
/// sealed. `cancel` either way at any time.
public final class GhostReceiver {
    enum Phase: Equatable {
        case awaitingHello
        /// The code is shown; each side's confirmation may come first.
        case confirming(local: Bool, peer: Bool)
        case awaitingMetadata
        case receiving
        case done
    }

    public let configuration: GhostReceiverConfiguration
    private let random: RandomSource
    var phase = Phase.awaitingHello
    private var stream = GhostFrameStream()
    private var frames = FIFO<[UInt8]>()
    private var events = FIFO<GhostReceiverEvent>()

    private var sessionID: GhostUUID?
    private var secrets: GhostSessionSecrets?
    private var cipher: GhostCipher?
    /// Sealed control frames: the next we send, the last we opened.
    private var sealSequence: UInt64 = 0
    private var lastOpened: UInt64?

    /// What the shell kept from before; checked against `metadata`.
    private var restored: GhostResumeState?
    private var digest = GhostDigest()
    public private(set) var resumeState: GhostResumeState?
    /// Chunks after a gap, opened, waiting for the gap to fill (GATT only).
    private var held: [UInt64: [UInt8]] = [:]

    private var deadline: Instant?
    private var lastProgressAt: Instant?
    /// Progress events at most this often (the last chunk always gives one).
    static let progressInterval: Int64 = 250
    /// This session's rate, measured at each progress event.
    private var rate = GhostRate()

    public init(configuration: GhostReceiverConfiguration = GhostReceiverConfiguration(), random: RandomSource,
                resume: GhostResumeState? = nil) {
        self.configuration = configuration
        self.random = random
        self.restored = resume
    }

    // MARK: output

    public func pollFrame() -> [UInt8]? { frames.popFirst() }
    public func pollEvent() -> GhostReceiverEvent? { events.popFirst() }
    public var nextDeadline: Instant? { deadline }
    public var isFinished: Bool { phase == .done }

    /// The code on screen, once the handshake gave one.
    public var code: String? { secrets?.sas }

    // MARK: input

    /// After a restart with a resume state: the bytes of the file already
    /// written, from offset 0, so the final SHA-256 covers them. Fed before
    /// `metadata` arrives; if they fall short the transfer starts over.
    public func restoreWrittenBytes(_ bytes: [UInt8]) {
        digest.update(bytes)
    }

    /// The same as `restoreWrittenBytes`, from a digest the shell fed the
    /// written bytes to in chunks (or the previous session's
    /// `writtenDigest`): the file need not be held in memory.
    public func restoreWritten(digest written: GhostDigest) {
        digest = written.copy()
    }

    /// The SHA-256 state of the bytes written so far (`write` events), for
    /// the next session to resume from (a copy: this one goes on).
    public var writtenDigest: GhostDigest { digest.copy() }

    /// Bytes from the channel (an L2CAP SDU, or anything cut from the stream).
    public func receive(_ bytes: [UInt8], now: Instant) {
        guard phase != .done else { return }
        stream.append(bytes)
        while phase != .done {
            let frame: GhostFrame?
            do throws(GhostFrameError) {
                frame = try stream.next()
            } catch {
                fail("Malformed frame: \(error)", now: now)
                return
            }
            guard let frame else { return }
            receive(frame: frame, now: now)
        }
    }

    /// The driver confirmed the code matches.
    public func confirm(now: Instant) {
        guard case .confirming(_, let peer) = phase else { return }
        send(.verifyAck(accepted: true))
        if peer { startAwaitingMetadata(now: now) } else { phase = .confirming(local: true, peer: false) }
    }

    /// The driver says the codes differ (or pressed Cancel while the code was shown).
    public func reject(now: Instant) {
        guard case .confirming = phase else { return cancel(reason: "Cancelled on the head unit", now: now) }
        send(.verifyAck(accepted: false))
        end(GhostEnd(byPeer: false, reason: "Codes did not match", resumable: false))
    }

    /// Ends the session with a reason the sender shows (a refused file, the
    /// driver's Cancel, the head unit shutting down).
    public func cancel(reason: String, now: Instant) {
        guard phase != .done else { return }
        if case .confirming = phase { send(.verifyAck(accepted: false)) }
        sendControl(.cancel(reason: reason))
        end(GhostEnd(byPeer: false, reason: reason, resumable: resumable))
    }

    /// The channel or the link went away.
    public func handleDisconnect() {
        guard phase != .done else { return }
        end(GhostEnd(byPeer: false, reason: "Link lost", resumable: resumable))
    }

    public func handleTimeout(now: Instant) {
        guard let at = deadline, now >= at, phase != .done else { return }
        if case .confirming = phase {
            cancel(reason: "The code was not confirmed in time", now: now)
        } else {
            cancel(reason: "Timed out waiting for the sender", now: now)
        }
    }

    // MARK: frames

    public func receive(frame: GhostFrame, now: Instant) {
        switch frame {
        case .hello(let hello):
            handleHello(hello, now: now)
        case .verify(let verification):
            guard let secrets, case .confirming = phase else { return fail("verify out of order", now: now) }
            guard verification.transcriptHash == secrets.transcriptHash, verification.sasCode == secrets.sas else {
                return fail("Transcript hash mismatch", now: now)
            }
        case .verifyAck(let accepted):
            guard case .confirming(let local, _) = phase else { return fail("verifyAck out of order", now: now) }
            guard accepted else {
                send(.verifyAck(accepted: false))
                return end(GhostEnd(byPeer: true, reason: "The sender did not confirm the code", resumable: false))
            }
            if local { startAwaitingMetadata(now: now) } else { phase = .confirming(local: false, peer: true) }
        case .encrypted(let sequence, let combined):
            handleSealed(sequence: sequence, combined: combined, now: now)
        case .data(let sequence, let payload):
            handleData(sequence: sequence, payload: payload, now: now)
        case .cancel(let reason):
            // In the clear before the codes are confirmed; a sealed one is
            // handled in handleSealed. Either ends the session.
            end(GhostEnd(byPeer: true, reason: reason, resumable: resumable))
        case .ping:
            touch(now: now)
        case .metadata, .complete:
            fail("\(frame.kind.jsonKey) arrived unsealed", now: now)
        case .helloAck, .ack, .resume:
            Log.info("ghostdrop", "ignored \(frame.kind.jsonKey) from the sender")
        }
    }

    private func handleHello(_ hello: GhostHello, now: Instant) {
        guard phase == .awaitingHello else { return fail("hello out of order", now: now) }
        guard hello.capabilities.protocolVersion == 1 else {
            return fail("Protocol version \(hello.capabilities.protocolVersion) is not supported", now: now)
        }
        let local: GhostEphemeral
        let derived: GhostSessionSecrets
        do throws(GhostCryptoError) {
            local = try GhostEphemeral(random: random)
            derived = try GhostHandshake.secrets(local: local, sessionID: hello.sessionID, remoteKey: hello.ephemeralPublicKey,
                                                 remoteNonce: hello.nonce)
        } catch {
            return fail(error == .badPublicKey ? "Bad ephemeral public key" : "No randomness for the handshake", now: now)
        }
        sessionID = hello.sessionID
        secrets = derived
        cipher = GhostCipher(secrets: derived, role: .receiver)
        send(.helloAck(GhostHelloAck(sessionID: hello.sessionID, ephemeralPublicKey: local.publicKey, nonce: local.nonce)))
        phase = .confirming(local: false, peer: false)
        deadline = now.adding(milliseconds: configuration.confirmTimeout)
        events.append(.showCode(derived.sas))
    }

    private func startAwaitingMetadata(now: Instant) {
        phase = .awaitingMetadata
        events.append(.verified)
        touch(now: now)
    }

    private func handleSealed(sequence: UInt64, combined: [UInt8], now: Instant) {
        guard let cipher, phase == .awaitingMetadata || phase == .receiving else {
            return fail("Sealed frame before the codes were confirmed", now: now)
        }
        // Each sealed control frame has a fresh sequence: a replayed one is refused.
        if let last = lastOpened, sequence <= last { return fail("Sealed frame \(sequence) replayed", now: now) }
        let plaintext: [UInt8]
        do throws(GhostCryptoError) {
            plaintext = try cipher.open(combined, sequence: sequence)
        } catch {
            return fail("Sealed frame \(sequence) failed authentication (\(error))", now: now)
        }
        let inner: GhostFrame
        do throws(GhostFrameError) {
            inner = try GhostFrameCodec.decode(plaintext)
        } catch {
            return fail("Sealed frame \(sequence) holds no frame: \(error)", now: now)
        }
        lastOpened = sequence
        touch(now: now)
        switch inner {
        case .metadata(let metadata): handleMetadata(metadata, now: now)
        case .complete(let complete): handleComplete(complete, now: now)
        case .cancel(let reason): end(GhostEnd(byPeer: true, reason: reason, resumable: resumable))
        case .ping: break
        default: fail("\(inner.kind.jsonKey) arrived sealed", now: now)
        }
    }

    private func handleMetadata(_ metadata: GhostFileMetadata, now: Instant) {
        guard phase == .awaitingMetadata else { return fail("A second metadata in one session", now: now) }
        guard metadata.chunkSize > 0, metadata.chunkSize <= configuration.maxChunkSize else {
            return cancel(reason: "Chunk size \(metadata.chunkSize) is not accepted", now: now)
        }
        guard metadata.size <= configuration.maxFileSize else {
            return cancel(reason: "File too large (\(metadata.size) bytes, at most \(configuration.maxFileSize))", now: now)
        }
        guard metadata.sha256.count == 32 else { return fail("metadata's sha256 is not 32 bytes", now: now) }
        var next: UInt64 = 0
        if let old = restored, old.metadata == metadata, digest.byteCount == old.writtenBytes {
            next = old.nextSequence
        } else if restored != nil || digest.byteCount > 0 {
            Log.info("ghostdrop", "resume state does not match transfer \(metadata.transferID): starting over")
            digest = GhostDigest()
        }
        restored = nil
        resumeState = GhostResumeState(metadata: metadata, nextSequence: next)
        phase = .receiving
        events.append(.incoming(metadata, startOffset: resumeState!.writtenBytes))
        // The reference receiver always answers `resume`, 0 meaning both
        // "nothing" and "chunk 0": ours answers only when it holds chunks.
        if next > 0 { send(.resume(GhostResume(transferID: metadata.transferID, lastConfirmedSequence: next - 1))) }
        if next == metadata.chunkCount { emitProgress(now: now, force: true) }
    }

    private func handleData(sequence: UInt64, payload: [UInt8], now: Instant) {
        guard phase == .receiving, let cipher, var state = resumeState else {
            return fail("Data before metadata", now: now)
        }
        touch(now: now)
        let window = UInt64(min(max(configuration.capabilities.maxWindow, 1), 64))
        if sequence < state.nextSequence {
            // A retransmission of what we hold: say so again.
            return sendAck()
        }
        guard sequence < state.metadata.chunkCount, sequence - state.nextSequence < window else {
            return fail("Chunk \(sequence) is outside the window", now: now)
        }
        let plaintext: [UInt8]
        do throws(GhostCryptoError) {
            plaintext = try cipher.open(payload, sequence: sequence)
        } catch {
            return fail("Chunk \(sequence) failed authentication", now: now)
        }
        let expected = chunkLength(sequence, of: state.metadata)
        guard plaintext.count == expected else {
            return fail("Chunk \(sequence) has \(plaintext.count) bytes, expected \(expected)", now: now)
        }
        held[sequence] = plaintext
        while let bytes = held.removeValue(forKey: state.nextSequence) {
            events.append(.write(offset: state.writtenBytes, bytes: bytes))
            digest.update(bytes)
            state.nextSequence += 1
        }
        resumeState = state
        sendAck()
        emitProgress(now: now, force: state.nextSequence == state.metadata.chunkCount)
    }

    private func chunkLength(_ sequence: UInt64, of metadata: GhostFileMetadata) -> Int {
        let start = Int64(sequence) * Int64(metadata.chunkSize)
        return Int(min(Int64(metadata.chunkSize), metadata.size - start))
    }

    /// Cumulative ack with a NACK bit for each gap below the highest held chunk.
    private func sendAck() {
        guard let state = resumeState, state.nextSequence > 0 else { return }
        var bitmap: UInt64 = 0
        if let highest = held.keys.max() {
            for s in state.nextSequence..<highest where held[s] == nil {
                bitmap |= 1 << (s - state.nextSequence)
            }
        }
        send(.ack(GhostAck(cumulativeSequence: state.nextSequence - 1, nackBitmap: bitmap)))
    }

    private func handleComplete(_ complete: GhostComplete, now: Instant) {
        guard phase == .receiving, let state = resumeState else { return fail("complete before metadata", now: now) }
        guard complete.transferID == state.metadata.transferID else { return fail("complete for another transfer", now: now) }
        guard state.nextSequence == state.metadata.chunkCount else {
            return fail("complete after \(state.nextSequence) of \(state.metadata.chunkCount) chunks", now: now)
        }
        let actual = digest.finish()
        guard actual == state.metadata.sha256, actual == complete.sha256 else {
            // What we hold is wrong and the resume state with it.
            resumeState = nil
            return fail("SHA-256 mismatch", now: now)
        }
        Log.info("ghostdrop", "received \(state.metadata.filename) (\(state.metadata.size) bytes), SHA-256 verified")
        resumeState = nil
        phase = .done
        deadline = nil
        events.append(.completed(state.metadata))
    }

    // MARK: helpers

    private func emitProgress(now: Instant, force: Bool) {
        guard let state = resumeState else { return }
        if !force, let last = lastProgressAt, now.millisecondsSince(last) < GhostReceiver.progressInterval { return }
        lastProgressAt = now
        let received = state.writtenBytes
        rate.measure(bytes: received, now: now)
        events.append(.progress(GhostProgress(bytesReceived: received, totalBytes: state.metadata.size,
                                              bytesPerSecond: rate.bytesPerSecond ?? 0,
                                              etaSeconds: rate.secondsLeft(state.metadata.size - received))))
    }

    /// Whether the shell should keep `resumeState` after the session ends.
    private var resumable: Bool { phase == .receiving && resumeState != nil }

    private func touch(now: Instant) {
        deadline = now.adding(milliseconds: configuration.idleTimeout)
    }

    private func send(_ frame: GhostFrame) {
        frames.append(GhostFrameCodec.encode(frame))
    }

    /// Control frames other than ack and resume go sealed once the codes are
    /// confirmed (the reference's sendControlFrame).
    private func sendControl(_ frame: GhostFrame) {
        guard let cipher, phase == .awaitingMetadata || phase == .receiving else { return send(frame) }
        let sealed = cipher.seal(GhostFrameCodec.encode(frame), sequence: sealSequence)
        send(.encrypted(sequence: sealSequence, combined: sealed))
        sealSequence += 1
    }

    /// A protocol error: logged, told to the sender, the session ended.
    private func fail(_ reason: String, now: Instant) {
        Log.warning("ghostdrop", reason)
        cancel(reason: reason, now: now)
    }

    private func end(_ end: GhostEnd) {
        phase = .done
        deadline = nil
        held = [:]
        events.append(.ended(end))
    }
}
