import BluetoothCore
@testable import HCI

/// The H4 byte stream from the controller, cut into reads at input-derived
/// points: first through a bare H4Framer, then through a ready Host with a
/// link (events, ACL reassembly, flow control, recovery on timeouts) that
/// also advertises as its static identity: between reads the owner starts,
/// slows, stops or restricts advertising and answers LTK requests, so the
/// input's Command Completes, connections as peripheral and disconnections
/// drive the Advertiser, on a controller with legacy advertising only, with
/// advertising sets, or with sets and extended scanning and initiating
/// (chosen by the input); the owner also scans and connects. Every
/// advertising, scanning and initiating command it sends is well formed,
/// it never mixes the legacy ones with the set and extended ones, and it
/// never leaves a deadline in the past.
enum H4Target {
    static let target = FuzzTarget(name: "h4", run: run, seeds: seeds)

    /// Type byte, ACL header, 65535 payload bytes: nothing can be longer.
    static let largestPacket = 1 + 4 + 65535

    static func run(_ data: [UInt8]) {
        var random = SplitMix(seed: SplitMix.seed(data))
        var reads: [Range<Int>] = []
        var start = 0
        while start < data.count {
            let end = min(data.count, start + 1 + random.below(random.below(4) == 0 ? 300 : 24))
            reads.append(start..<end)
            start = end
        }

        // The packets must not depend on how reads cut the stream, and every
        // byte is a packet's, dropped, or pending.
        var whole = H4Framer()
        let expected = whole.push(data)
        var framer = H4Framer()
        var packets: [HCIPacket] = []
        for read in reads {
            packets += framer.push(data[read])
            invariant(framer.pendingCount < largestPacket, "framer holds \(framer.pendingCount) bytes, more than a packet")
        }
        invariant(packets == expected, "packets depend on where reads cut the stream")
        invariant(framer.droppedBytes == whole.droppedBytes && framer.pendingCount == whole.pendingCount,
                  "dropped or pending bytes depend on the cuts")
        var accounted = whole.droppedBytes + whole.pendingCount
        for packet in expected {
            invariant(packet.type != .command, "a command packet from the controller was accepted")
            let header = packet.type.headerLength
            invariant(packet.body.count >= header, "packet shorter than its header")
            accounted += 1 + packet.body.count
        }
        invariant(accounted == data.count, "framer lost or invented bytes: \(accounted) of \(data.count)")

        var now = Instant(milliseconds: 1_000)
        let controller = random.below(3)
        let host = ReadyHost.make(now: now, sets: controller > 0, extendedScanning: controller == 2)
        host.setIdentityAddress(identity)
        host.startAdvertising(advertisement)
        var kinds = AdvertisingKinds()
        for read in reads {
            now = now.adding(milliseconds: Int64(random.below(2_500)))
            host.receive(data[read], now: now)
            if let deadline = host.nextDeadline, deadline <= now {
                host.handleTimeout(now: now)
                if let next = host.advertiser.nextDeadline {
                    invariant(next > now, "the advertiser left a deadline in the past: \(next) at \(now)")
                }
            }
            if random.below(6) == 0 {
                // Traffic of our own keeps ACL flow control busy.
                host.sendL2CAP(H4.l2cap(channel: 0x0004, [UInt8](repeating: 0x0A, count: random.below(70))), on: ReadyHost.link)
            }
            if random.below(5) == 0 { owner(host, random.below(11)) }
            drain(host, now: now, kinds: &kinds)
        }
    }

    /// Which advertising, scanning and initiating commands one host life
    /// has sent: legacy or set and extended commands, never both (Core Vol
    /// 4 Part E 3.1.1).
    struct AdvertisingKinds {
        var legacy = false
        var sets = false
    }

    static let identity = StaticRandomAddress(text: "C3:44:55:66:77:88")!
    static let payload = AdvertisingPayload.accessory(name: "NavigationNotifier",
                                                      soliciting: [BluetoothUUID("7905F431-B5CE-4E99-A40F-4B1E122D00D0")!])
    static let bridgeService = BluetoothUUID("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44")!
    /// With GhostDrop's extra, as the head unit's: a set of its own or
    /// turns, and on air alone while a link is secure.
    static let advertisement = Advertisement(
        sets: [payload, AdvertisingPayload.offering(bridgeService, name: "NavigationNotifier")],
        combined: AdvertisingPayload.combined(name: "NavigationNotifier", soliciting: [BluetoothUUID("7905F431-B5CE-4E99-A40F-4B1E122D00D0")!],
                                              service: bridgeService),
        extra: AdvertisingPayload.offering(BluetoothUUID("BFA6E968-0F36-4888-8F63-C8EC01385E67")!, name: "NavigationNotifier"))

    /// A phone the owner connects to as central.
    static let phone = BluetoothAddress("5B:01:02:03:04:05", kind: .random)!

    /// What the owner of a head unit asks of the host.
    static func owner(_ host: Host, _ choice: Int) {
        let handle = host.links.keys.sorted().last ?? ReadyHost.link
        switch choice {
        case 0: host.startAdvertising(advertisement)
        case 1: host.slowAdvertising()
        case 2: host.stopAdvertising()
        case 3: host.setAdvertisingAudience(.bonded([BondedIdentity(address: ReadyHost.peer, irk: [UInt8](repeating: 0x11, count: 16))],
                                                    localIRK: [UInt8](repeating: 0x22, count: 16)))
        case 4: host.setAdvertisingAudience(.anyone)
        case 5: host.replyToLongTermKeyRequest(handle, ltk: [UInt8](repeating: 0x33, count: 16))
        case 6: host.refuseLongTermKeyRequest(handle)
        case 7: host.peripheralLinkSecured(handle)
        case 8: host.connect(to: phone)
        case 9: host.cancelConnect()
        default: host.startScanning(active: true)
        }
    }

    /// An advertising command as the specification lays it out.
    static func checkAdvertising(_ command: HCICommand, kinds: inout AdvertisingKinds) {
        let p = command.parameters
        let legacy: [HCIOpcode] = [.leSetAdvertisingParameters, .leSetAdvertisingData, .leSetScanResponseData, .leSetAdvertisingEnable,
                                   .leSetScanParameters, .leSetScanEnable, .leCreateConnection]
        let sets: [HCIOpcode] = [.leSetAdvertisingSetRandomAddress, .leSetExtendedAdvertisingParameters, .leSetExtendedAdvertisingData,
                                 .leSetExtendedScanResponseData, .leSetExtendedAdvertisingEnable, .leReadNumberOfSupportedAdvertisingSets,
                                 .leSetExtendedScanParameters, .leSetExtendedScanEnable, .leExtendedCreateConnection]
        if legacy.contains(command.opcode) { kinds.legacy = true }
        if sets.contains(command.opcode) { kinds.sets = true }
        invariant(!(kinds.legacy && kinds.sets), "legacy and set/extended commands mixed (\(command.opcode))")
        switch command.opcode {
        case .leSetExtendedScanParameters:
            invariant(p.count == 8 && p[2] == 0x01 && p[3] <= 1, "extended scan parameters \(p)")
        case .leSetExtendedScanEnable:
            invariant(p.count == 6 && p[0] <= 1 && p[1] <= 1 && p[2...].allSatisfy { $0 == 0 }, "extended scan enable \(p)")
        case .leExtendedCreateConnection:
            invariant(p.count == 26 && p[0] == 0 && p[9] == 0x01, "extended create connection \(p)")
        case .leSetExtendedAdvertisingParameters:
            invariant(p.count == 25 && p[0] < 2 && p[1] == 0x13 && p[2] == 0, "set parameters \(p)")
            let min = Int(p[3]) | Int(p[4]) << 8 | Int(p[5]) << 16, max = Int(p[6]) | Int(p[7]) << 8 | Int(p[8]) << 16
            invariant(min == max && (0x20...0x4000).contains(min), "set interval \(min)..\(max)")
        case .leSetExtendedAdvertisingData, .leSetExtendedScanResponseData:
            invariant(p.count >= 4 && p[0] < 2 && p[1] == 0x03 && p[3] <= 31 && p.count == 4 + Int(p[3]), "set data \(p)")
        case .leSetExtendedAdvertisingEnable:
            invariant(p == [0, 0] || (p.count >= 2 && p[0] == 1 && p[1] >= 1 && p.count == 2 + 4 * Int(p[1])), "set enable \(p)")
        case .leSetAdvertisingSetRandomAddress:
            invariant(p.count == 7 && p[0] < 2 && Array(p[1...]) == identity.address.littleEndianBytes, "set address \(p)")
        case .leSetAdvertisingData, .leSetScanResponseData:
            invariant(p.count == 32 && Int(p[0]) <= 31, "\(command.opcode) of \(p.count) bytes, significant \(p.first ?? 0)")
        case .leSetAdvertisingParameters:
            invariant(p.count == 15, "advertising parameters of \(p.count) bytes")
            let min = le16(p, 0), max = le16(p, 2)
            invariant(min == max && (0x20...0x4000).contains(min), "advertising interval \(min)..\(max)")
            invariant(p[5] <= 1 && (p[14] == 0 || p[14] == 2), "own address type \(p[5]), filter policy \(p[14])")
        case .leSetAdvertisingEnable:
            invariant(p == [0] || p == [1], "advertising enable \(p)")
        case .leSetRandomAddress:
            invariant(p == identity.address.littleEndianBytes, "random address other than our identity")
        default:
            break
        }
    }

    static func drain(_ host: Host, now: Instant, kinds: inout AdvertisingKinds) {
        while let event = host.pollEvent() {
            if case .l2capFrame(_, let slice) = event {
                let frame = Array(slice)
                invariant(frame.count >= 4 && frame.count == 4 + le16(frame, 0),
                          "reassembled frame of \(frame.count) bytes disagrees with its L2CAP length")
            }
        }
        while let packet = host.pollTransmit(now: now) {
            switch packet.type {
            case .command:
                guard let command = HCICommand(body: packet.body) else {
                    invariant(false, "malformed command sent")
                    return
                }
                // HCI Reset ends the controller's memory of what was used (3.1.1).
                if command.opcode == .reset { kinds = AdvertisingKinds() }
                checkAdvertising(command, kinds: &kinds)
            case .aclData:
                guard let acl = ACLPacket(body: packet.body) else {
                    invariant(false, "malformed ACL packet sent")
                    return
                }
                invariant(acl.data.count <= host.controller.aclDataLength,
                          "ACL fragment of \(acl.data.count) bytes exceeds the controller's \(host.controller.aclDataLength)")
            default:
                invariant(false, "host sent a packet of type \(packet.type.rawValue)")
            }
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        let link = ReadyHost.link
        let other = ConnectionHandle(0x0041)
        let phone = BluetoothAddress("5C:F7:E6:D5:C4:B3", kind: .random)!
        let readByGroupType: [UInt8] = [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]
        let advertisingData: [UInt8] = [0x02, 0x01, 0x06] + [0x11, 0x07] + nnServiceLE + [0x06, 0x09] + Array("Anna".utf8) + [0x00]
        let longFrame = H4.l2cap(channel: 0x0004, [0x1B, 0x03, 0x00] + [UInt8](repeating: 0x41, count: 40))
        return [
            ("att-request", H4.acl(link, boundary: 0b10, H4.l2cap(channel: 0x0004, readByGroupType))),
            ("att-fragmented", H4.acl(link, boundary: 0b10, Array(longFrame[0..<27]))
                + H4.acl(link, boundary: 0b01, Array(longFrame[27...]))),
            ("smp-pairing-response", H4.acl(link, boundary: 0b10, H4.l2cap(channel: 0x0006, [0x02, 0x04, 0x00, 0x2D, 0x10, 0x02, 0x03]))),
            ("le-signaling", H4.acl(link, boundary: 0b10, H4.l2cap(channel: 0x0005, [0x12, 0x01, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01]))),
            ("second-link", H4.connectionComplete(handle: other, peer: phone, role: 1)
                + H4.acl(other, boundary: 0b10, H4.l2cap(channel: 0x0004, [0x02, 0xF7, 0x00]))),
            ("enhanced-connection-complete", H4.leMeta(0x0A, [0x00, 0x42, 0x00, 0x00, 0x01] + phone.littleEndianBytes
                + [UInt8](repeating: 0, count: 12) + [0x18, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00])),
            ("completed-packets", H4.event(0x13, [0x01, 0x40, 0x00, 0x02, 0x00])),
            ("disconnection", H4.event(0x05, [0x00, 0x40, 0x00, 0x13])),
            ("hardware-error", H4.event(0x10, [0x01])),
            ("buffer-overflow", H4.event(0x1A, [0x01])),
            ("encryption-change", H4.event(0x08, [0x00, 0x40, 0x00, 0x01]) + H4.event(0x59, [0x00, 0x40, 0x00, 0x01, 0x10])),
            ("key-refresh", H4.event(0x30, [0x00, 0x40, 0x00])),
            ("ltk-request", H4.leMeta(0x05, [0x40, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 0x34, 0x12])),
            ("remote-parameters", H4.leMeta(0x06, [0x40, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01])),
            ("connection-update", H4.leMeta(0x03, [0x00, 0x40, 0x00, 0x24, 0x00, 0x00, 0x00, 0x90, 0x01])),
            ("data-length", H4.leMeta(0x07, [0x40, 0x00, 0xFB, 0x00, 0x48, 0x08, 0xFB, 0x00, 0x48, 0x08])),
            ("advertising-report", H4.leMeta(0x02, [0x01, 0x00, 0x01] + phone.littleEndianBytes
                + [UInt8(advertisingData.count)] + advertisingData + [0xC4])),
            ("extended-advertising-report", H4.leMeta(0x0D, [0x01, 0x13, 0x00, 0x01] + phone.littleEndianBytes
                + [0x01, 0x00, 0xFF, 0x7F, 0xB0, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6)
                + [UInt8(advertisingData.count)] + advertisingData)),
            ("command-status-error", H4.event(0x0F, [0x0C, 0x01, 0x0D, 0x20])),
            // Our advertising accepted step by step, refused once, then a
            // phone connects to us as central and leaves.
            ("advertising-accepted", advertisingAccepted(status: 0x00)),
            ("advertising-disallowed", advertisingAccepted(status: 0x0C)),
            ("advertising-sets-accepted", [HCIOpcode](repeating: .leSetExtendedAdvertisingParameters, count: 2).flatMap { H4.commandComplete($0, returning: [0x00, 0x00]) }
                + [HCIOpcode.leSetAdvertisingSetRandomAddress, .leSetAdvertisingSetRandomAddress, .leSetExtendedAdvertisingData,
                   .leSetExtendedScanResponseData, .leSetExtendedAdvertisingData, .leSetExtendedScanResponseData,
                   .leSetExtendedAdvertisingEnable].flatMap { H4.commandComplete($0, returning: [0x00]) }
                + H4.connectionComplete(handle: other, peer: phone, role: 1)
                + H4.commandComplete(.leSetExtendedAdvertisingEnable, returning: [0x00])),
            ("peripheral-link-and-loss", advertisingAccepted(status: 0x00)
                + H4.connectionComplete(handle: other, peer: phone, role: 1)
                + H4.leMeta(0x05, [0x41, 0x00] + [UInt8](repeating: 0, count: 10))
                + H4.event(0x05, [0x00, 0x41, 0x00, 0x13])
                + H4.commandComplete(.leSetAdvertisingEnable, returning: [0x00])),
            ("remote-version", H4.event(0x0C, [0x00, 0x40, 0x00, 0x0B, 0x4C, 0x00, 0x0E, 0x04])),
            ("out-of-sync", [0xFF, 0x00, 0x13, 0x04] + H4.event(0x10, [0x03])),
            ("iso-and-sco", [0x05, 0x40, 0x00, 0x02, 0x00, 0xAA, 0xBB, 0x03, 0x40, 0x00, 0x01, 0xCC]),
        ]
    }

    /// Command Completes for the advertiser's start-up, in its order; the
    /// enable answered with `status`.
    static func advertisingAccepted(status: UInt8) -> [UInt8] {
        let ok: [HCIOpcode] = [.leSetRandomAddress, .leSetAdvertisingParameters, .leSetAdvertisingData, .leSetScanResponseData]
        return ok.flatMap { H4.commandComplete($0, returning: [0x00]) }
            + H4.commandComplete(.leSetAdvertisingEnable, returning: [status])
    }

    /// The NavigationNotifier service UUID, least significant byte first.
    static let nnServiceLE: [UInt8] = BluetoothUUID("AB312B45-A8A1-4BCE-97E7-7D3D97FB541E")!.fullLittleEndian
}
