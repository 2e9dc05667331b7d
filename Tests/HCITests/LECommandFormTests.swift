import BluetoothCore
import Testing
@testable import HCI
import ScriptedPeers

/// One form of the advertising, scanning and initiating commands per
/// controller, never a mix (Core Vol 4 Part E 3.1.1: a controller may
/// refuse legacy commands once a set command was used, and the other way
/// round, with Command Disallowed until HCI Reset).
@Suite struct LECommandFormTests {
    static let ancs = BluetoothUUID("7905F431-B5CE-4E99-A40F-4B1E122D00D0")!
    static let bridgeService = BluetoothUUID("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44")!
    let identity = StaticRandomAddress(text: "C0:11:22:33:44:55")!
    let phone = BluetoothAddress("4A:01:02:03:04:05", kind: .random)!
    let settings = AdvertisingPayload.accessory(name: "NotifBdg Car", soliciting: [Self.ancs])
    let bridge = AdvertisingPayload.offering(Self.bridgeService, name: "NotifBdg Car")
    let combined = AdvertisingPayload.combined(name: "NotifBdg Car", soliciting: [Self.ancs], service: Self.bridgeService)
    var advertisement: Advertisement { Advertisement(sets: [settings, bridge], combined: combined) }

    static let setCommands: [SupportedCommand] = [
        .leSetAdvertisingSetRandomAddress, .leSetExtendedAdvertisingParameters, .leSetExtendedAdvertisingData,
        .leSetExtendedScanResponseData, .leSetExtendedAdvertisingEnable, .leReadNumberOfSupportedAdvertisingSets,
    ]
    static let extendedScanning: [SupportedCommand] = [.leSetExtendedScanParameters, .leSetExtendedScanEnable, .leExtendedCreateConnection]

    /// Legacy advertising, scanning and initiating commands (3.1.1's list, as the host uses them).
    static let legacyOpcodes: [HCIOpcode] = [
        .leSetAdvertisingParameters, .leSetAdvertisingData, .leSetScanResponseData, .leSetAdvertisingEnable,
        .leSetScanParameters, .leSetScanEnable, .leCreateConnection,
    ]
    static let extendedOpcodes: [HCIOpcode] = [
        .leSetAdvertisingSetRandomAddress, .leSetExtendedAdvertisingParameters, .leSetExtendedAdvertisingData,
        .leSetExtendedScanResponseData, .leSetExtendedAdvertisingEnable,
        .leSetExtendedScanParameters, .leSetExtendedScanEnable, .leExtendedCreateConnection,
    ]

    /// A controller with `sets` advertising sets (none: legacy only), with
    /// or without the extended scanning and initiating commands.
    static func controller(sets: UInt8?, extendedScanning: Bool) -> ScriptedController {
        var controller = ScriptedController()
        if let sets {
            for command in setCommands { controller.set(command, supported: true) }
            controller.advertisingSets = sets
        }
        for command in Self.extendedScanning { controller.set(command, supported: extendedScanning) }
        return controller
    }

    /// A controller that enforces 3.1.1: the first legacy or extended
    /// command decides, the other kind is answered Command Disallowed.
    struct NoMix {
        var used: Bool?
        mutating func answer(_ command: HCICommand, _ controller: ScriptedController) -> [UInt8] {
            let asynchronous = [.leCreateConnection, .leExtendedCreateConnection].contains(command.opcode)
            var status: UInt8 = 0
            let extended = LECommandFormTests.extendedOpcodes.contains(command.opcode)
            if extended || LECommandFormTests.legacyOpcodes.contains(command.opcode) {
                if let used, used != extended { status = 0x0C } else { used = extended }
            }
            return asynchronous ? controller.commandStatus(command.opcode, status: status)
                : controller.commandComplete(command.opcode, [status])
        }
    }

    /// Brings the host up on `controller`, then advertises, scans and
    /// connects to a phone as the head unit does; returns every command
    /// sent after bring-up and the events.
    func advertiseScanAndConnect(on controller: ScriptedController) -> (Host, [HCICommand], [HostEvent]) {
        let host = Host()
        host.setIdentityAddress(identity)
        var controller = controller
        _ = controller.bringUp(host)
        var noMix = NoMix()
        var sent: [HCICommand] = []
        func exchange() {
            while let packet = host.pollTransmit(now: .zero) {
                guard let command = HCICommand(body: packet.body) else { continue }
                sent.append(command)
                host.receive(noMix.answer(command, controller), now: .zero)
            }
        }
        // The owner's identity goes out at the end of bring-up (legacy form): answer it too.
        if let last = controller.sent.last.flatMap({ HCICommand(body: $0.body) }), controller.reply(to: last) == nil {
            sent.append(last)
            host.receive(noMix.answer(last, controller), now: .zero)
        }
        exchange()
        host.startAdvertising(advertisement)
        host.startScanning(active: true)
        exchange()
        host.connect(to: phone)
        exchange()
        host.cancelConnect()
        exchange()
        return (host, sent, events(host))
    }

    func refusals(_ events: [HostEvent]) -> [HostEvent] {
        events.filter { if case .commandFailed = $0 { return true } else { return false } }
    }

    // MARK: - The choice, from the controller's description

    @Test func theChoiceFollowsTheDescription() {
        var info = ControllerInfo()
        info.supportedCommands = ScriptedController.mask([])
        #expect(info.commandForm == .legacy)
        info.supportedCommands = ScriptedController.mask(Self.setCommands)
        info.advertisingSets = 2
        #expect(info.commandForm == .legacy, "sets without extended scanning: legacy, so nothing is mixed")
        info.supportedCommands = ScriptedController.mask(Self.setCommands + Self.extendedScanning)
        #expect(info.commandForm == .extended(advertisingSets: 2))
        info.advertisingSets = nil
        #expect(info.commandForm == .legacy, "a controller that cannot count its sets")
        info.advertisingSets = 1
        info.supportedCommands = ScriptedController.mask(Self.setCommands + [.leSetExtendedScanParameters, .leSetExtendedScanEnable])
        #expect(info.commandForm == .legacy, "no LE Extended Create Connection")
    }

    // MARK: - What the host sends

    @Test func aLegacyControllerGetsTheLegacyCommandsAsBefore() {
        let (host, sent, events) = advertiseScanAndConnect(on: Self.controller(sets: nil, extendedScanning: false))
        #expect(host.advertiser.commands == .legacy)
        #expect(sent == [
            .leSetRandomAddress(identity),
            .leSetAdvertisingParameters(interval: .fast, ownAddressType: .random, filterPolicy: .anyone),
            .leSetScanParameters(active: true, interval: 0x60, window: 0x30),
            .leSetScanEnable(true, filterDuplicates: false),
            .leSetAdvertisingData(combined.advertisingData),
            .leSetScanResponseData(combined.scanResponse),
            .leSetAdvertisingEnable(true),
            .leSetScanEnable(false, filterDuplicates: false),
            .leCreateConnection(peer: phone, parameters: .default),
            .leCreateConnectionCancel(),
        ])
        #expect(refusals(events).isEmpty, "\(refusals(events))")
    }

    @Test func setsWithoutExtendedScanningAdvertiseTheCombinedPayloadTheLegacyWay() {
        let (host, sent, events) = advertiseScanAndConnect(on: Self.controller(sets: 2, extendedScanning: false))
        #expect(host.controller.commandForm == .legacy)
        #expect(host.advertiser.commands == .legacy)
        #expect(host.advertiser.payloads == [combined])
        #expect(!sent.contains { Self.extendedOpcodes.contains($0.opcode) }, "\(sent.map(\.opcode))")
        #expect(sent.contains(.leSetAdvertisingData(combined.advertisingData)))
        #expect(sent.contains(.leSetScanEnable(true, filterDuplicates: false)))
        #expect(sent.contains(.leCreateConnection(peer: phone, parameters: .default)))
        #expect(refusals(events).isEmpty, "\(refusals(events))")
        #expect(host.isScanning == false && host.advertiser.state == .advertising(.fast))
    }

    @Test func setsWithExtendedScanningUseTheExtendedFormForEverything() {
        let (host, sent, events) = advertiseScanAndConnect(on: Self.controller(sets: 2, extendedScanning: true))
        #expect(host.controller.commandForm == .extended(advertisingSets: 2))
        #expect(host.advertiser.payloads == [settings, bridge], "one payload per set")
        #expect(!sent.contains { Self.legacyOpcodes.contains($0.opcode) || $0.opcode == .leSetRandomAddress },
                "a legacy command beside the set commands: \(sent.map(\.opcode))")
        #expect(sent.contains(.leSetExtendedScanParameters(active: true, interval: 0x60, window: 0x30)))
        #expect(sent.contains(.leSetExtendedScanEnable(true, filterDuplicates: false)))
        #expect(sent.contains(.leSetExtendedScanEnable(false, filterDuplicates: false)), "scanning stops before connecting")
        #expect(sent.contains(.leExtendedCreateConnection(peer: phone, parameters: .default)))
        #expect(sent.last == .leCreateConnectionCancel(), "Cancel serves both forms (7.8.13)")
        #expect(sent.contains(.leEnableAdvertisingSets([AdvertisingSetHandle(0), AdvertisingSetHandle(1)])))
        #expect(refusals(events).isEmpty, "\(refusals(events))")
    }

    @Test func extendedScanningReportsAndTheEnhancedConnectionCompleteReachTheOwner() {
        let (host, _, _) = advertiseScanAndConnect(on: Self.controller(sets: 2, extendedScanning: true))
        // An iPhone's ADV_IND as an LE Extended Advertising Report (7.7.65.13):
        // event type 0x0013 (connectable, scannable, legacy PDU), random address,
        // LE 1M, no secondary PHY, SID 0xFF, TX power 0x7F, RSSI -60, no
        // periodic interval, no direct address, 3 octets of data.
        var report: [UInt8] = [0x0D, 0x01, 0x13, 0x00, 0x01] + phone.littleEndianBytes
        report += [0x01, 0x00, 0xFF, 0x7F, 0xC4, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6)
        report += [0x03, 0x02, 0x01, 0x06]
        host.receive(ScriptedController.event(0x3E, report), now: .zero)
        #expect(events(host) == [.advertisingReport(AdvertisingReport(kind: .connectableUndirected, address: phone, rssi: -60,
                                                                      data: [0x02, 0x01, 0x06]))])
        host.connect(to: phone)
        // LE Enhanced Connection Complete, we are central.
        var complete: [UInt8] = [0x0A, 0x00, 0x40, 0x00, 0x00, phone.kind.rawValue] + phone.littleEndianBytes
        complete += [UInt8](repeating: 0, count: 12) + [24, 0, 0, 0, 0x90, 0x01, 0x00]
        host.receive(ScriptedController.event(0x3E, complete), now: .zero)
        #expect(host.links[ConnectionHandle(0x40)]?.peer == phone)
        #expect(host.connectingTo == nil)
    }

    // MARK: - The commands' bytes (Core Vol 4 Part E 7.8.64–7.8.66)

    @Test func extendedScanParametersEnableAndCreateConnection() {
        #expect(HCICommand.leSetExtendedScanParameters(active: true, interval: 0x60, window: 0x30)
            == HCICommand(HCIOpcode(0x2041), [0x00, 0x00, 0x01, 0x01, 0x60, 0x00, 0x30, 0x00]))
        #expect(HCICommand.leSetExtendedScanEnable(true, filterDuplicates: true)
            == HCICommand(HCIOpcode(0x2042), [0x01, 0x01, 0x00, 0x00, 0x00, 0x00]))
        let p = ConnectionParameters(intervalMin: 24, intervalMax: 40, peripheralLatency: 0, supervisionTimeout: 400)
        #expect(HCICommand.leExtendedCreateConnection(peer: phone, parameters: p)
            == HCICommand(HCIOpcode(0x2043), [0x00, // filter policy: the peer below
                                              0x00, // own address: public
                                              0x01, 0x05, 0x04, 0x03, 0x02, 0x01, 0x4A, // random peer
                                              0x01, // LE 1M
                                              0x60, 0x00, 0x30, 0x00, // scan interval, window
                                              0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01, // interval, latency, timeout
                                              0x00, 0x00, 0x00, 0x00])) // CE length
        // Supported_Commands octet 37, bits 5, 6, 7 (6.27).
        #expect(SupportedCommand.leSetExtendedScanParameters.position == (37, 5))
        #expect(SupportedCommand.leSetExtendedScanEnable.position == (37, 6))
        #expect(SupportedCommand.leExtendedCreateConnection.position == (37, 7))
    }

    /// LE Read Number of Supported Advertising Sets is itself an extended
    /// command (3.1.1): reading it at bring-up would commit a strict
    /// controller to the extended form, so it is asked only where the head
    /// unit will use that form.
    @Test func bringUpAsksForTheSetCountOnlyWhereTheExtendedFormWillBeUsed() {
        for extendedScanning in [false, true] {
            let host = Host()
            var controller = Self.controller(sets: 2, extendedScanning: extendedScanning)
            _ = controller.bringUp(host)
            let asked = controller.sent.contains { HCICommand(body: $0.body)?.opcode == .leReadNumberOfSupportedAdvertisingSets }
            #expect(asked == extendedScanning)
            #expect(host.controller.advertisingSets == (extendedScanning ? 2 : nil))
        }
    }

    /// Before the controller is ready (during bring-up, after a reset) the
    /// form is not known: nothing goes out for a scan or a connection, the
    /// connection fails at once, and the owner scans again on `.ready`.
    @Test func nothingIsScannedOrConnectedBeforeTheControllerIsReady() {
        let host = Host()
        host.start(now: .zero)
        _ = drain(host)
        host.startScanning(active: true)
        host.connect(to: phone)
        #expect(drain(host).isEmpty)
        #expect(events(host) == [.connectionFailed(peer: phone, status: .commandDisallowed)])
        #expect(host.connectingTo == nil && !host.isScanning)
    }

    @Test func aControllerWithoutTheExtendedCommandsNeverGetsThem() {
        let host = Host()
        var controller = Self.controller(sets: 2, extendedScanning: false)
        _ = controller.bringUp(host)
        _ = events(host)
        host.send(.leSetExtendedScanEnable(true, filterDuplicates: false), tag: .numbered(1))
        #expect(events(host) == [.commandCompleted(.numbered(1), .complete([HCIStatus.unknownCommand.code]))])
        #expect(drain(host).isEmpty)
    }
}
