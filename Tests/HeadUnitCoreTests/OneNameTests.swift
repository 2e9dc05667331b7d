import BluetoothCore
import GhostDrop
@testable import HCI
import ScriptedPeers
import Testing
@testable import HeadUnitCore

/// The head unit is listed under one name (docs/NOTIFBRIDGE.md, "One name
/// in iOS's lists"): every payload the controller holds names it the same
/// way, from the first command to the slow interval, through a connection,
/// and again after a restart.
@Suite struct OneNameTests {
    /// A controller with `sets` advertising sets (0: legacy advertising only).
    func rig(sets: UInt8, settings: CoreSettings = CoreSettings(findsNavigationNotifierPhones: false)) throws -> CoreRig {
        try settingsRig(settings: settings) { rig in
            if sets > 0 {
                rig.controller.supportedCommands[36] = 0b1011_1110
                // Extended scanning and initiating too: sets are used only then (LECommandForm).
                rig.controller.supportedCommands[37] = 0b1110_0000
                rig.controller.advertisingSets = sets
            }
        }.0
    }

    /// Every name in the payloads the controller has accepted now.
    func namesOnAir(_ rig: CoreRig) -> [String] {
        let applied = rig.core.host.advertiser.applied
        return applied.data.keys.sorted().flatMap { set -> [String] in
            var data = AdvertisingData(applied.data[set] ?? [])
            data.merge(applied.scanResponse[set] ?? [])
            return [data.completeName, data.shortName].compactMap { $0 }
        }
    }

    /// The names on air, sampled every 100 ms for `seconds` (the fast
    /// period ends at 30 s), then through a phone connecting and leaving.
    func namesOverTime(_ rig: CoreRig, seconds: Int) -> Set<String> {
        var seen = Set(namesOnAir(rig))
        for _ in 0..<(seconds * 10) {
            rig.advance(milliseconds: 100)
            seen.formUnion(namesOnAir(rig))
        }
        rig.phoneConnectsToUs()
        rig.settle()
        seen.formUnion(namesOnAir(rig))
        return seen
    }

    @Test func twoSetsCarryTheCompleteNameBoth() throws {
        let rig = try rig(sets: 4)
        #expect(rig.core.host.advertiser.commands == .sets(4))
        #expect(rig.core.host.advertiser.applied.data.count == 3, "the Settings, NotifBridge and GhostDrop sets")
        #expect(namesOnAir(rig) == ["NotifBdg 3F9A21", "NotifBdg 3F9A21", "NotifBdg 3F9A21"])
        #expect(namesOverTime(rig, seconds: 35) == ["NotifBdg 3F9A21"])
    }

    @Test func oneSetOrLegacyAdvertisingCarryTheShortenedNameOnly() throws {
        for sets: UInt8 in [0, 1] {
            let rig = try rig(sets: sets)
            #expect(rig.core.host.advertiser.payloads.count == 1)
            // 11 bytes of it: the beginning of the complete name the screen shows.
            #expect(namesOnAir(rig) == ["NotifBdg 3F"])
            #expect(rig.screen().hint?.hasSuffix("tap NotifBdg 3F9A21") == true)
            #expect(namesOverTime(rig, seconds: 35) == ["NotifBdg 3F"])
        }
    }

    @Test func theNameComesFromStoredStateAloneAndSurvivesARestart() throws {
        let first = try rig(sets: 2)
        let second = try rig(sets: 2)
        #expect(namesOnAir(first) == namesOnAir(second))
        #expect(HeadUnitName.of(deviceName: nil, clientName: "HU-3F9A21", notifBridge: true) == "NotifBdg 3F9A21")
        #expect(HeadUnitName.of(deviceName: "Golf", clientName: "HU-3F9A21", notifBridge: true) == "NotifBdg Golf")
        #expect(HeadUnitName.of(deviceName: nil, clientName: "HU-3F9A21", notifBridge: false) == "NavigationNotifier HU-3F9A21")
        #expect(HeadUnitName.of(deviceName: String(repeating: "x", count: 40), clientName: "HU-3F9A21", notifBridge: false).utf8.count == 29)
    }

    @Test func withoutNotifBridgeOnePayloadAndTheUsualName() throws {
        let rig = try rig(sets: 4, settings: CoreSettings(notifBridge: false, findsNavigationNotifierPhones: false))
        #expect(rig.core.host.advertiser.payloads.count == 2, "the Settings accessory and GhostDrop")
        #expect(namesOnAir(rig) == ["NavigationNotifier HU-3F9A21", "NavigationNotifier HU-3F9A21"])
    }
}

/// GhostDrop's service on air (docs/GHOSTDROP.md, "The capabilities on
/// air"): its sender scans for it. On a set of its own with three sets;
/// with two, one or legacy advertising, its advertising data takes turns
/// with the Settings accessory's (or the combined payload's) on the first
/// set, under that set's scan response, so the same name.
@Suite struct GhostDropOnAirTests {
    let names = OneNameTests()

    /// Whether the controller has GhostDrop's service on air now, and where.
    func ghostDropSets(_ rig: CoreRig) -> [Int] {
        let applied = rig.core.host.advertiser.applied
        return applied.data.keys.sorted().filter { AdvertisingData(applied.data[$0] ?? []).advertises(GhostDropService.service) }
    }

    @Test func threeSetsKeepItOnAirAllTheTime() throws {
        let rig = try names.rig(sets: 3)
        for _ in 0..<50 {
            #expect(ghostDropSets(rig) == [2])
            rig.advance(milliseconds: 100)
        }
    }

    @Test func fewerSetsTakeTurnsOnTheFirstUnderTheSameName() throws {
        for sets: UInt8 in [0, 1, 2] {
            let rig = try names.rig(sets: sets)
            let before = names.namesOnAir(rig)
            var onAir = 0, samples = 0
            for _ in 0..<90 {
                rig.advance(milliseconds: 100)
                let where_ = ghostDropSets(rig)
                #expect(where_.isEmpty || where_ == [0], "\(sets) sets: \(where_)")
                onAir += where_.isEmpty ? 0 : 1
                samples += 1
                #expect(names.namesOnAir(rig) == before, "\(sets) sets: the name holds still")
            }
            // 1 s of every 3: a third of the samples, give or take one turn's edges.
            #expect((25...35).contains(onAir), "\(sets) sets: on air in \(onAir) of \(samples) samples")
        }
    }
}
