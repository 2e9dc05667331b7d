import Foundation
import Testing

/// The bonded phone in the driver's pocket (docs/PROTOCOL.md §7): the Server
/// app is in the background, so the phone advertises without the service
/// UUID and without its name, about once a second, from a resolvable private
/// address. The head unit must find it by its IRK after a restart, after a
/// link loss, and after the address changed while the phone was away.
@Suite(.serialized) struct PhoneInPocketIntegrationTests {
    /// A lost link is noticed after 1 s instead of the supervision timeout.
    static let simulatorArguments = ["--phone", "anna", "--link-loss-delay", "1"]

    /// A head unit bonded with `anna` (passkey typed), then the driver puts
    /// the phone away: the app goes to the background.
    func bondedUnitWithThePhoneInAPocket(_ phone: PhoneSimulator, name: String) throws -> RunningHeadUnit {
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: name)
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
        let state = try phone.command("app_background", ["phone": "anna"])
        #expect(state["app"] as? String == "background")
        return unit
    }

    /// Connected and encrypted again with the stored keys (no new pairing),
    /// while the app is still in the background; returns the address the
    /// phone was connected at.
    func expectBackInThePocket(_ unit: RunningHeadUnit, _ phone: PhoneSimulator,
                               sourceLocation: SourceLocation = #_sourceLocation) throws -> String? {
        let connected = phone.waitFor("connected", timeout: 30)
        #expect(connected != nil, "the head unit never connected to the phone in the pocket", sourceLocation: sourceLocation)
        #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true, sourceLocation: sourceLocation)
        let state = try phone.command("state", ["phone": "anna"])
        #expect(state["app"] as? String == "background", sourceLocation: sourceLocation)
        #expect(state["encrypted"] as? Bool == true, sourceLocation: sourceLocation)
        #expect(unit.allEvents.filter { $0["event"] as? String == "paired" }.count <= 1,
                "paired again instead of encrypting with the bond", sourceLocation: sourceLocation)
        return connected?["address"] as? String
    }

    @Test func headUnitRestartFindsThePhoneInThePocket() throws {
        let phone = try PhoneSimulator(arguments: Self.simulatorArguments)
        defer { phone.stop() }
        let first = try bondedUnitWithThePhoneInAPocket(phone, name: "pocket-restart")
        first.stop()
        #expect(phone.waitFor("disconnected", timeout: 10) != nil)
        let unit = try RunningHeadUnit(hci: phone.hciSpec, stateDirectory: first.stateDirectory, name: "pocket-restart2")
        defer { unit.stop() }
        #expect(unit.waitForState("remembered"))
        let address = try expectBackInThePocket(unit, phone)
        #expect(address == (try phone.command("state", ["phone": "anna"]))["address"] as? String)
        #expect(unit.allEvents.filter { $0["event"] as? String == "passkey" }.isEmpty)
    }

    @Test func linkLossWithThePhoneInThePocketReconnects() throws {
        let phone = try PhoneSimulator(arguments: Self.simulatorArguments)
        defer { phone.stop() }
        let unit = try bondedUnitWithThePhoneInAPocket(phone, name: "pocket-loss")
        defer { unit.stop() }
        try phone.command("out_of_range", ["phone": "anna"])
        #expect(unit.waitForState("remembered", timeout: 30))
        #expect(phone.waitFor("disconnected", timeout: 10) != nil)
        try phone.command("in_range", ["phone": "anna"])
        _ = try expectBackInThePocket(unit, phone)
    }

    @Test func addressRotatedWhileAwayIsFoundUnderTheNewAddress() throws {
        let phone = try PhoneSimulator(arguments: Self.simulatorArguments)
        defer { phone.stop() }
        let unit = try bondedUnitWithThePhoneInAPocket(phone, name: "pocket-rotate")
        defer { unit.stop() }
        let before = try #require((try phone.command("state", ["phone": "anna"]))["address"] as? String)
        try phone.command("out_of_range", ["phone": "anna"])
        #expect(unit.waitForState("remembered", timeout: 30))
        #expect(phone.waitFor("disconnected", timeout: 10) != nil)
        // iOS changes the address about every 15 minutes; here after 2 s, once.
        try phone.command("set_address_rotation", ["phone": "anna", "seconds": 2])
        let rotated = try #require(phone.waitFor("address_rotated", timeout: 10))
        try phone.command("set_address_rotation", ["phone": "anna", "seconds": NSNull()])
        let new = try #require(rotated["new"] as? String)
        #expect(rotated["old"] as? String == before)
        #expect(new != before)
        try phone.command("in_range", ["phone": "anna"])
        let address = try expectBackInThePocket(unit, phone)
        #expect(address == new)
    }
}
