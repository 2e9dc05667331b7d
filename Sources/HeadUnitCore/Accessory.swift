import BluetoothCore
import HCI
import SMP

/// The head unit as an accessory that iPhones pair with from Settings →
/// Bluetooth (docs/PROTOCOL.md §7): what it advertises as, who may connect,
/// and the pairing window. The core (`HeadUnitCore+Accessory`) acts on it.
struct Accessory {
    /// The static random address it advertises from and gives the phone
    /// as its identity, the same on every boot.
    let identity: StaticRandomAddress
    /// The name iOS lists it under.
    let name: String
    /// Phones paired from Settings (bonds made as peripheral), found by
    /// their identity address or by resolving their private address.
    var bonded = AddressResolver<String>()
    /// Pairing mode (any phone may connect and pair) until then. Without a
    /// bond from Settings it is always pairing mode.
    var pairingUntil: Instant?
    /// A phone that runs the NavigationNotifier app is the phone: nothing
    /// is advertised until it leaves.
    var standingBy = false
    /// What the controller was last told: advertising, and to whom.
    var advertising = false
    var audience: AdvertisingAudience?
    /// The last `accessory` event, so that each change is told once.
    var reported: AccessoryReport?

    init(identity: StaticRandomAddress, name: String) {
        self.identity = identity
        self.name = name
    }

    /// Anyone may connect and pair.
    var pairingOpen: Bool { pairingUntil != nil || bonded.entries.isEmpty }

    /// The bond key of a phone paired from Settings: such a phone has no
    /// SERVER NAME, so it is kept under its identity address.
    static func bondKey(_ identity: BluetoothAddress) -> String { "settings " + identity.text }
}

/// The `accessory` event: where the head unit stands as an accessory.
public struct AccessoryReport: Equatable {
    public enum State: String, Equatable {
        /// Advertising; any iPhone may pair from Settings.
        case pairing
        /// Advertising for the bonded iPhone only.
        case bonded
        /// A phone paired from Settings is connected and encrypted: the phone.
        case connected
        /// Not advertising: a NavigationNotifier phone is the phone.
        case standby
    }

    public var state: State
    /// The name the iPhone lists.
    public var name: String
    /// The phone's identity address when connected.
    public var phone: String?
    /// Milliseconds of pairing mode left when it was opened on request; nil otherwise.
    public var pairingWindowMilliseconds: Int64?
}
