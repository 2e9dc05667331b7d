import BluetoothCore
@testable import HeadUnitCore
import L2CAP
import ScriptedPeers
import ScriptedPairing
import Testing

/// GhostDrop's L2CAP channel through the whole core: the SPSM it publishes,
/// the security it demands of a phone that connected to the head unit,
/// SDUs reassembled from the phone's K-frames and handed to the core whole,
/// and what the core sends back cut at the phone's MTU and MPS.
@Suite struct GhostDropChannelTests {
    /// LE Credit Based Connection Request, identifier 1: SPSM, the phone's
    /// CID 0x0041, MTU 100, MPS 50, 10 credits.
    func request(_ spsm: SPSM) -> [UInt8] {
        [0x14, 0x01, 10, 0, UInt8(spsm.rawValue & 0xFF), UInt8(spsm.rawValue >> 8), 0x41, 0x00, 100, 0, 50, 0, 10, 0]
    }

    func signaling(_ phone: RigPhone) -> [[UInt8]] { phone.otherFrames.filter { $0.channel == 0x0005 }.map(\.payload) }

    @Test func theCorePublishesADynamicSPSMForGhostDrop() throws {
        let (rig, _) = try settingsRig()
        let spsm = try #require(rig.core.ghostDrop.spsm)
        #expect(spsm.isDynamic)
        #expect(GhostDropChannel.service.security == .encrypted)
    }

    @Test func anUnencryptedPhoneIsRefusedAndAPairedOneOpensTheChannel() throws {
        let (rig, phone) = try settingsRig()
        let spsm = try #require(rig.core.ghostDrop.spsm)
        rig.phoneConnectsToUs()
        rig.phoneSendsL2CAP(channel: 0x0005, request(spsm))
        // Result 0x0008: insufficient encryption.
        #expect(signaling(rig.first).last == [0x15, 0x01, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00])
        #expect(rig.core.ghostDrop.open.isEmpty)

        // The same link pairs (the phone is already connected).
        try pairFromSettings(rig, phone)
        #expect(rig.first.encrypted)
        rig.phoneSendsL2CAP(channel: 0x0005, request(spsm))
        // Our CID 0x0040, MTU 2048, MPS 247, 18 credits, successful.
        #expect(signaling(rig.first).last == [0x15, 0x01, 10, 0, 0x40, 0x00, 0x00, 0x08, 0xF7, 0x00, 18, 0, 0x00, 0x00])
        let channel = try #require(rig.core.ghostDrop.open.first)
        #expect(channel.peerMTU == 100 && channel.channel.local == ChannelIdentifier(0x0040))

        // An SDU of 500 bytes in K-frames of 247, 247 and 8 bytes.
        let sdu = (0..<500).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let payload = [UInt8(500 & 0xFF), UInt8(500 >> 8)] + sdu
        for start in stride(from: 0, to: payload.count, by: 247) {
            rig.phoneSendsL2CAP(channel: 0x0040, Array(payload[start..<min(start + 247, payload.count)]))
        }
        #expect(rig.core.ghostDrop.sdusReceived == 1 && rig.core.ghostDrop.bytesReceived == 500)
        // They are no GhostDrop frame: the channel's receiver cancels with the reason.
        #expect(rig.events.last == .ghostDrop(.ended(reason: "Malformed frame: no GHST magic", byPeer: false, resumable: false)))
        let before = rig.first.otherFrames.count

        // What the core sends back: SDUs of the phone's MTU 100, K-frames of its MPS 50.
        let answer = (0..<250).map { UInt8(truncatingIfNeeded: 255 - $0) }
        rig.core.ghostDrop.send(answer, on: channel.channel)
        rig.core.pump()
        rig.settle()
        let kFrames = rig.first.otherFrames.dropFirst(before).filter { $0.channel == 0x0041 }.map(\.payload)
        #expect(kFrames.allSatisfy { $0.count <= 50 })
        #expect(kFrames.count == 8, "SDUs of 100, 100 and 50 bytes take 3, 3 and 2 K-frames")
        var sdus: [[UInt8]] = []
        var rest: [UInt8] = []
        var expected = 0
        for frame in kFrames {
            if rest.isEmpty && expected == 0 {
                expected = Int(frame[0]) | Int(frame[1]) << 8
                rest = Array(frame.dropFirst(2))
            } else {
                rest += frame
            }
            if rest.count == expected {
                sdus.append(rest)
                rest = []
                expected = 0
            }
        }
        #expect(sdus.map(\.count) == [100, 100, 50])
        #expect(sdus.flatMap { $0 } == answer)
    }
}
