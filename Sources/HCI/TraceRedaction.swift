import BluetoothCore

/// Zeroes the key material of HCI packets before they go into a btsnoop
/// trace, keeping every length, so Wireshark still decodes each packet and
/// shows the redacted fields as zeros. What counts as key material is what
/// a radio listener never sees and what would let a trace reader decrypt
/// the link or impersonate either side:
///
/// - HCI commands: the LTK of LE Enable Encryption and of LE Long Term Key
///   Request Reply, the key of LE Encrypt, both IRKs of LE Add Device To
///   Resolving List; the DHKey of LE Generate DHKey Complete (an event).
/// - SMP key distribution (CID 0x0006; encrypted on air, clear over HCI):
///   Encryption Information (LTK), Identity Information (IRK), Signing
///   Information (CSRK). Central Identification (EDIV, Rand) only names
///   the LTK and stays.
/// - ATT writes the phone makes to `secretAttributes` of the head unit's
///   GATT server (Write Request, Write Command, Prepare Write Request, and
///   the Prepare Write Response the head unit echoes them with): the NotifBridge key-exchange
///   characteristic, whose prepare packets carry the seed of an X-Wing
///   private key. The value bytes are zeroed in every ACL fragment.
///
/// Pairing Confirm, Random, Public Key and DHKey Check stay: they cross the
/// air in clear, so the trace tells nothing a listener did not hear (with
/// LE Secure Connections they do not give the LTK away). Notification text
/// and NotifBridge envelopes stay too: they are not keys (envelopes are
/// sealed with keys derived from the seed, which is gone).
public struct TraceRedaction {
    /// Value handles of the head unit's GATT server whose written values
    /// are secret.
    public var secretAttributes: Set<UInt16>

    /// The part of an L2CAP frame still to zero in its later ACL fragments,
    /// per connection handle and direction.
    private struct Pending {
        /// Bytes of the L2CAP frame (header included) seen so far.
        var seen: Int
        let frameLength: Int
        /// Zero bytes at frame positions `from..<frameLength`.
        let from: Int
    }
    private var pending: [UInt32: Pending] = [:]

    public init(secretAttributes: Set<UInt16> = []) {
        self.secretAttributes = secretAttributes
    }

    enum SMPCode {
        static let encryptionInformation: UInt8 = 0x06
        static let identityInformation: UInt8 = 0x08
        static let signingInformation: UInt8 = 0x0A
    }

    /// The packet as the trace may hold it.
    public mutating func redact(_ packet: HCIPacket, direction: TraceDirection) -> HCIPacket {
        var body = packet.body
        switch packet.type {
        case .command: redactCommand(&body)
        case .event: redactEvent(&body)
        case .aclData: redactACL(&body, direction: direction)
        default: break
        }
        return HCIPacket(type: packet.type, body: body)
    }

    /// Zeroes `count` bytes from `offset`, as far as the body goes.
    private static func zero(_ body: inout [UInt8], from offset: Int, count: Int) {
        guard offset < body.count else { return }
        for i in offset..<min(body.count, offset + count) { body[i] = 0 }
    }

    private func redactCommand(_ body: inout [UInt8]) {
        guard body.count >= 3 else { return }
        let opcode = UInt16(body[0]) | UInt16(body[1]) << 8
        let parameters = 3
        switch opcode {
        case HCIOpcode.leEncrypt.value:
            TraceRedaction.zero(&body, from: parameters, count: 16)
        case HCIOpcode.leEnableEncryption.value:
            // Connection handle 2, Random 8, EDIV 2, LTK 16.
            TraceRedaction.zero(&body, from: parameters + 12, count: 16)
        case HCIOpcode.leLongTermKeyRequestReply.value:
            // Connection handle 2, LTK 16.
            TraceRedaction.zero(&body, from: parameters + 2, count: 16)
        case HCIOpcode.leAddDeviceToResolvingList.value:
            // Address type 1, address 6, peer IRK 16, local IRK 16.
            TraceRedaction.zero(&body, from: parameters + 7, count: 32)
        default:
            break
        }
    }

    private func redactEvent(_ body: inout [UInt8]) {
        // LE Meta (0x3E), LE Generate DHKey Complete (0x09): status, DHKey 32.
        guard body.count >= 3, body[0] == 0x3E, body[2] == 0x09 else { return }
        TraceRedaction.zero(&body, from: 4, count: 32)
    }

    private mutating func redactACL(_ body: inout [UInt8], direction: TraceDirection) {
        guard body.count >= 4 else { return }
        let handleAndFlags = UInt16(body[0]) | UInt16(body[1]) << 8
        let connection = handleAndFlags & 0x0FFF
        let continuing = (handleAndFlags >> 12) & 0b11 == PacketBoundary.continuing.rawValue
        let key = UInt32(connection) << 1 | (direction == .sent ? 1 : 0)
        let dataStart = 4
        let fragment = body.count - dataStart
        var state: Pending
        if continuing {
            guard let p = pending[key] else { return }
            state = p
        } else {
            pending[key] = nil
            guard let from = secretStart(body[dataStart...], direction: direction) else { return }
            state = Pending(seen: 0, frameLength: l2capLength(body) + 4, from: from)
        }
        // Frame positions of this fragment: seen..<seen + fragment.
        let start = max(state.from, state.seen)
        let end = min(state.frameLength, state.seen + fragment)
        if start < end { TraceRedaction.zero(&body, from: dataStart + start - state.seen, count: end - start) }
        state.seen += fragment
        pending[key] = state.seen < state.frameLength ? state : nil
    }

    private func l2capLength(_ body: [UInt8]) -> Int {
        body.count >= 6 ? Int(body[4]) | Int(body[5]) << 8 : 0
    }

    /// Where the secret of an L2CAP frame starts (a position in the frame,
    /// header included; it runs to the frame's end), nil when it holds none.
    /// A first fragment too short to tell is taken as secret from the
    /// header on: a controller never cuts a frame that short, and a trace
    /// that hides too much is the safe mistake.
    private func secretStart(_ l2cap: ArraySlice<UInt8>, direction: TraceDirection) -> Int? {
        // Positions from the frame's start, read in place (no copy per packet).
        let o = l2cap.startIndex
        guard l2cap.count >= 4 else { return 0 }
        let channel = UInt16(l2cap[o + 2]) | UInt16(l2cap[o + 3]) << 8
        let payload = 4
        switch channel {
        case 0x0006:  // SMP
            guard l2cap.count > payload else { return payload }
            switch l2cap[o + payload] {
            case SMPCode.encryptionInformation, SMPCode.identityInformation, SMPCode.signingInformation:
                return payload + 1
            default:
                return nil
            }
        case 0x0004:  // ATT
            guard !secretAttributes.isEmpty else { return nil }
            guard l2cap.count >= payload + 3 else { return payload }
            let handle = UInt16(l2cap[o + payload + 1]) | UInt16(l2cap[o + payload + 2]) << 8
            guard secretAttributes.contains(handle) else { return nil }
            // Only the phone's writes to our server and our echoes: the
            // head unit's own writes to the phone's handles stay.
            switch (l2cap[o + payload], direction) {
            case (0x12, .received), (0x52, .received):  // Write Request, Write Command: handle, value
                return payload + 3
            case (0x16, .received), (0x17, .sent):  // Prepare Write Request, its echo: handle, offset, value
                return payload + 5
            default:
                return nil
            }
        default:
            return nil
        }
    }
}
