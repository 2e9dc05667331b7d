import BluetoothCore
import GhostDrop
import L2CAP
import ScreenValues
import SMP
import Update

/// Where GhostDrop's L2CAP channel meets the core: the SPSM the head unit
/// publishes for it (a dynamic one, encryption required, as the GhostDrop
/// app's receiver does with `publishL2CAPChannel(withEncryption: true)`),
/// the channels a sender opened on it, and one `GhostReceiver` per channel;
/// also the sessions of senders over GhostDrop's GATT service, one per
/// link (`GhostDropCarrier`, GhostDropGATT.swift).
///
/// Each SDU goes whole to its channel's receiver (on L2CAP GhostDrop's
/// `GHST` frames follow one another on a stream, so an SDU may hold part of
/// a frame or several); what the receiver answers goes out through `send`,
/// cut to the sender's MTU. The receiver's events leave as reports for the
/// event log (`reports`) and, for the file and its resume state, as
/// `GhostDropFileOp`s for the shell (`fileOps`, `StateWrite.ghostDrop`).
public struct GhostDropChannel {
    /// SDUs of up to 2048 bytes (iOS's own MTU for an L2CAP channel it
    /// publishes) in K-frames of 247 bytes, one LE data PDU each.
    public static let service = ChannelService(security: .encrypted, mtu: 2048, mps: 247)

    /// One sender's session and what carries it: an open channel (with the
    /// largest SDU its sender takes) or, over GATT, the sender's link.
    struct Open {
        var carrier: GhostDropCarrier
        var receiver: GhostReceiver
        /// The code is on screen and the driver has not answered yet.
        var awaitingAnswer = false
        /// Its session may touch the kept file (a refused sender's may not).
        var keepsFile = true
        /// What the file offered is, once accepted at `incoming`.
        var kind: GhostDropFileKind?
        /// A bundle's first bytes, until its header is checked.
        var header: [UInt8] = []
        /// The sender's name for the file offered, once it was offered.
        var filename: String?
    }

    /// The SPSM GhostDrop's capabilities carry; nil if none was free.
    public internal(set) var spsm: SPSM?
    var channels: [Open] = []
    public internal(set) var sdusReceived = 0
    public internal(set) var bytesReceived = 0
    /// What goes to the sender, by channel; the core hands it to L2CAP.
    var outgoing = FIFO<ChannelSDU>()
    /// For the event log, in the order the receivers gave them.
    var reports = FIFO<GhostDropReport>()
    /// For the shell: the incoming file and the resume state.
    var fileOps = FIFO<GhostDropFileOp>()
    /// Whole frames for senders over GATT, by link; the core notifies them
    /// on the data characteristic (GhostDropGATT).
    var gattOutgoing = FIFO<(handle: ConnectionHandle, frame: [UInt8])>()
    /// What a broken-off transfer left for the next session.
    var partial: GhostDropPartial
    /// What each receiving session draws its key and nonce from: the
    /// core's source (a test may give the draws a recorded transfer used).
    var random: RandomSource
    /// Free bytes on the state partition, as the shell last measured them
    /// (nil: not known; sizes are then checked against the caps only).
    var stateFreeBytes: Int64?
    /// What the screen's transfer band shows.
    var band: GhostDropBand?

    init(random: RandomSource, partial: GhostDropPartial) {
        self.random = random
        self.partial = partial
    }

    /// Open channels to it and the largest SDU each sender takes.
    public var open: [(channel: ChannelEndpoint, peerMTU: UInt16)] {
        channels.compactMap {
            guard case let .channel(channel, peerMTU) = $0.carrier else { return nil }
            return (channel, peerMTU)
        }
    }

    /// The code waiting for the driver's answer, if any (the newest).
    public var codeShown: String? { channels.last { $0.awaitingAnswer }?.receiver.code }

    /// `refusal`: the reason this sender may not send files here; its
    /// session is cancelled with it at once (GhostDrop shows the reason).
    mutating func opened(_ channel: ChannelEndpoint, peerMTU: UInt16, refusal: String?, now: Instant) {
        Log.info("ghostdrop", "a sender opened \(channel) (it takes SDUs of up to \(peerMTU) bytes)")
        start(.channel(channel, peerMTU: peerMTU), refusal: refusal, now: now)
    }

    /// A new session on `carrier`; `refusal` as for `opened`.
    mutating func start(_ carrier: GhostDropCarrier, refusal: String?, now: Instant) {
        guard let refusal else {
            channels.append(Open(carrier: carrier, receiver: partial.receiver(random: random)))
            return
        }
        Log.warning("ghostdrop", "\(carrier): \(refusal)")
        channels.append(Open(carrier: carrier, receiver: GhostReceiver(random: random), keepsFile: false))
        channels[channels.count - 1].receiver.cancel(reason: refusal, now: now)
        drain(channels.count - 1, now: now)
    }

    mutating func closed(_ channel: ChannelEndpoint, _ why: ChannelClosure, now: Instant) {
        Log.info("ghostdrop", "\(channel) closed: \(why)")
        end(.channel(channel), now: now)
    }

    /// The session on `carrier` is over (its channel or link is gone).
    mutating func end(_ carrier: GhostDropCarrier.Key, now: Instant) {
        guard let index = channels.firstIndex(where: { $0.carrier.key == carrier }) else { return }
        channels[index].receiver.handleDisconnect()
        drain(index, now: now)
        channels.remove(at: index)
    }

    /// One SDU from a sender, to its channel's receiver.
    mutating func received(_ sdu: ChannelSDU, now: Instant) {
        sdusReceived += 1
        bytesReceived += sdu.bytes.count
        guard let index = channels.firstIndex(where: { $0.carrier.key == .channel(sdu.channel) }) else {
            Log.warning("ghostdrop", "SDU of \(sdu.bytes.count) bytes on \(sdu.channel), which is not open; dropped")
            return
        }
        Log.info("ghostdrop", "SDU \(sdusReceived) of \(sdu.bytes.count) bytes on \(sdu.channel) (\(bytesReceived) bytes in all)")
        channels[index].receiver.receive(sdu.bytes, now: now)
        drain(index, now: now)
    }

    /// The driver's answer to the code shown ("Codes match" or "Cancel");
    /// false when no code waits for one.
    mutating func answerCode(matches: Bool, now: Instant) -> Bool {
        guard let index = channels.lastIndex(where: { $0.awaitingAnswer }) else { return false }
        channels[index].awaitingAnswer = false
        if matches {
            channels[index].receiver.confirm(now: now)
        } else {
            channels[index].receiver.reject(now: now)
        }
        drain(index, now: now)
        return true
    }

    /// The driver's Cancel during a transfer (or on the code); false when
    /// no transfer runs.
    mutating func cancelTransfer(now: Instant) -> Bool {
        guard let index = channels.lastIndex(where: { !$0.receiver.isFinished }) else { return false }
        channels[index].awaitingAnswer = false
        channels[index].receiver.cancel(reason: "Cancelled on the head unit", now: now)
        drain(index, now: now)
        return true
    }

    /// The head unit is stopping (SIGTERM): each session receiving a file
    /// hands the shell its resume state now, at its last confirmed chunk,
    /// instead of at the next 64 KiB (`GhostDropPartial.resumeStride`), so
    /// the restart resumes exactly where this run stopped. The links' ends
    /// may not come back before the process exits.
    mutating func keepResumeStates() {
        for open in channels where open.keepsFile && open.kind != nil && !open.receiver.isFinished {
            partial.keep(open.receiver.resumeState, final: true, &fileOps)
        }
    }

    /// Inlined into the core's, which would otherwise copy the channel out to ask it.
    var nextDeadline: Instant? {
        @inline(__always) get {
            var deadline: Instant? = nil
            for open in channels { deadline = earliest(deadline, open.receiver.nextDeadline) }
            return deadline
        }
    }

    mutating func handleTimeout(now: Instant) {
        for index in channels.indices {
            guard let due = channels[index].receiver.nextDeadline, due <= now else { continue }
            channels[index].receiver.handleTimeout(now: now)
            drain(index, now: now)
        }
    }

    /// The receiver's frames to the sender, its events to the reports; a
    /// file refused on the way is cancelled, which gives more of both.
    mutating func drain(_ index: Int, now: Instant) {
        let receiver = channels[index].receiver
        // A file completed or a session that leaves nothing to resume: the
        // receiver's last resume state is void.
        var void = false
        sendFrames(of: index)
        let key = channels[index].carrier.key
        while let event = receiver.pollEvent() {
            switch event {
            case .showCode: channels[index].awaitingAnswer = true
            case .verified: channels[index].awaitingAnswer = false
            case .progress(let p):
                if band?.follows(key) == true {
                    band?.band.status = .receiving(bytes: p.bytesReceived, total: p.totalBytes, bytesPerSecond: p.bytesPerSecond,
                                                   etaSeconds: p.etaSeconds)
                }
            case .completed(let metadata):
                void = true
                // The shell hands it on at once and says how that went
                // (`HeadUnitCore.transferHandedOn`).
                band = .outcome(metadata.filename, .received, now: now)
            case .ended(let end):
                channels[index].awaitingAnswer = false
                void = void || !end.resumable
                if band?.follows(key) == true, let name = channels[index].filename {
                    band = .outcome(name, .cancelled(end.reason), now: now)
                }
                // A refused session kept nothing: the phone's next try starts
                // over (or resumes the transfer kept from before, not this).
                if end.resumable && !channels[index].keepsFile {
                    reports.append(.ended(reason: end.reason, byPeer: end.byPeer, resumable: false))
                    continue
                }
            case let .incoming(metadata, startOffset):
                channels[index].filename = metadata.filename
                band = .receiving(key, metadata.filename, bytes: startOffset, total: metadata.size)
                if let refusal = accept(index, metadata, startOffset: startOffset) {
                    // The offer is logged; nothing of it is written.
                    if let report = GhostDropReport(event) { reports.append(report) }
                    refuse(index, refusal, now: now)
                    continue
                }
            case .write(let offset, let bytes):
                if let refusal = checkHeader(index, offset: offset, bytes) {
                    refuse(index, refusal, now: now)
                    continue
                }
            }
            if channels[index].keepsFile { partial.track(event, &fileOps) }
            if let report = GhostDropReport(event) { reports.append(report) }
        }
        // A refusal's cancel.
        sendFrames(of: index)
        guard channels[index].keepsFile && !void else { return }
        partial.keep(receiver.resumeState, final: receiver.isFinished, &fileOps)
        // The session is over and may be resumed: the next one goes on from
        // the SHA-256 of what this one wrote.
        if receiver.isFinished, let state = receiver.resumeState, partial.resume == state { partial.written = receiver.writtenDigest }
    }

    /// The receiver's frames, to its channel or, over GATT, to be notified.
    private mutating func sendFrames(of index: Int) {
        let open = channels[index]
        while let frame = open.receiver.pollFrame() {
            switch open.carrier {
            case .channel(let channel, _): send(frame, on: channel)
            case .gatt(let handle): gattOutgoing.append((handle, frame))
            }
        }
    }

    /// `incoming`: the file's kind, or why it is refused (name, size, free space).
    private mutating func accept(_ index: Int, _ metadata: GhostFileMetadata, startOffset: Int64) -> GhostDropRefusal? {
        switch GhostDropFileKind.decide(metadata, startOffset: startOffset, freeBytes: stateFreeBytes) {
        case .success(let kind):
            Log.info("ghostdrop", "accepting \(metadata.filename) (\(metadata.size) bytes) as \(kind == .updateBundle ? "an update bundle" : "headunit.conf")")
            channels[index].kind = kind
            channels[index].header = []
            return nil
        case .failure(let refusal):
            return refusal
        }
    }

    /// A bundle's header, as soon as its first 16 bytes are here (a resumed
    /// transfer's was checked when it arrived).
    private mutating func checkHeader(_ index: Int, offset: Int64, _ bytes: [UInt8]) -> GhostDropRefusal? {
        guard channels[index].kind == .updateBundle, offset < Int64(BundleHeader.size) else { return nil }
        channels[index].header += bytes.prefix(BundleHeader.size - channels[index].header.count)
        guard channels[index].header.count == BundleHeader.size else { return nil }
        return GhostDropFileKind.bundleHeaderRefusal(channels[index].header)
    }

    /// Cancels the session with the reason the phone shows, and drops what
    /// it wrote; a transfer kept from before is left alone unless this one
    /// already replaced it.
    private mutating func refuse(_ index: Int, _ refusal: GhostDropRefusal, now: Instant) {
        Log.warning("ghostdrop", "refused: \(refusal.reason)")
        if let name = channels[index].filename { band = .outcome(name, .refused(refusal.reason), now: now) }
        if channels[index].kind != nil {
            // This session had begun the incoming file: nothing of it stays.
            partial = GhostDropPartial(resume: nil, written: nil)
            fileOps.append(.discard)
        }
        channels[index].keepsFile = false
        channels[index].kind = nil
        channels[index].receiver.cancel(reason: refusal.reason, now: now)
    }

    /// Bytes for the sender on `channel`, cut into SDUs it takes.
    mutating func send(_ bytes: [UInt8], on channel: ChannelEndpoint) {
        guard let open = channels.first(where: { $0.carrier.key == .channel(channel) }),
              case let .channel(_, peerMTU) = open.carrier else {
            Log.warning("ghostdrop", "\(bytes.count) bytes for \(channel), which is not open; dropped")
            return
        }
        var offset = 0
        repeat {
            let end = min(offset + Int(peerMTU), bytes.count)
            outgoing.append(ChannelSDU(channel: channel, bytes: Array(bytes[offset..<end])))
            offset = end
        } while offset < bytes.count
    }
}

/// What carries a GhostDrop session: an LE credit-based channel, or the
/// GhostDrop GATT service on a link (the fallback when the sender does not
/// use a channel; GhostDropGATT).
enum GhostDropCarrier: CustomStringConvertible {
    case channel(ChannelEndpoint, peerMTU: UInt16)
    case gatt(ConnectionHandle)

    /// The carrier without its parameters, to find a session by.
    enum Key: Equatable {
        case channel(ChannelEndpoint)
        case gatt(ConnectionHandle)
    }

    var key: Key {
        switch self {
        case .channel(let channel, _): return .channel(channel)
        case .gatt(let handle): return .gatt(handle)
        }
    }

    var description: String {
        switch self {
        case .channel(let channel, _): return "\(channel)"
        case .gatt(let handle): return "GATT on \(handle)"
        }
    }
}
