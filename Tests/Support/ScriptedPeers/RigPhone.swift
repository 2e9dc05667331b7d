import BluetoothCore
import HCI
import NavigationNotifier

/// One phone of a `CoreRig`, on its own connection handle: its GATT side
/// (`phone`), its address, its SMP, how its controller takes encryption,
/// and the state of its link. The rig's first phone is made with the rig;
/// `CoreRig.addPhone` adds more, each on the next handle.
public final class RigPhone {
    public var phone: ScriptedPhone
    public let address: BluetoothAddress
    /// The connection handle its link gets.
    public let handle: UInt16
    /// It advertises while not connected, heard `advertisingDelayMilliseconds` after a scan starts.
    public var advertises = true
    /// Whether its advertisements carry the NavigationNotifier service UUID:
    /// with the Server app in the background (the phone in the driver's
    /// pocket) iOS advertises neither the service nor the name.
    public var advertisesService = true
    /// It takes connections; false: LE Create Connection never completes.
    public var acceptsConnections = true
    public internal(set) var isLinkUp = false
    /// Its Security Manager: answers one SMP PDU. nil: it stays silent.
    public var smp: (([UInt8]) -> [[UInt8]])?
    /// Encryption asked for with this LTK: the Encryption Change status (0
    /// succeeds) and the SMP PDUs the phone sends once encrypted.
    public var encryption: ([UInt8]) -> (status: UInt8, then: [[UInt8]]) = { _ in (0, []) }
    /// Links it made to us: what it makes of the key the head unit answered
    /// its controller's LE Long Term Key Request with; nil: refused.
    public var peripheralEncryption: ([UInt8]?) -> (status: UInt8, then: [[UInt8]]) = { ltk in (ltk == nil ? 0x06 : 0, []) }
    /// It answers ATT requests; false: it holds them (`CoreRig.releaseHeldATT`).
    public var answersATT = true
    var heldATT: [[UInt8]] = []
    /// Its link is encrypted (the controller reported it so).
    public internal(set) var encrypted = false
    /// The keys the head unit answered its LTK requests with, nil for a refusal.
    public internal(set) var longTermKeyAnswers: [[UInt8]?] = []
    /// The SMP PDUs the head unit sent it.
    public internal(set) var smpSent: [[UInt8]] = []
    /// Frames the head unit sent it on other channels than ATT and SMP
    /// (LE signaling, credit based channels), with their CID.
    public internal(set) var otherFrames: [(channel: UInt16, payload: [UInt8])] = []
    /// How its link last ended, when the head unit ended it: the reason it gave.
    public internal(set) var disconnectReason: UInt8?
    var frames = L2CAPFrames()

    public init(phone: ScriptedPhone, address: BluetoothAddress, handle: UInt16) {
        self.phone = phone
        self.address = address
        self.handle = handle
    }

    /// One advertising report of it, as the controller passes it up.
    public func advertisement() -> [UInt8] {
        var data: [UInt8] = [2, 0x01, 0x06]
        if advertisesService { data += [17, 0x07] + NavigationNotifierUUIDs.service.compactLittleEndian }
        return ScriptedController.advertisingReport(address, data: data)
    }
}
