import SMP
import ScreenValues

/// What went wrong, for the event log's `error` event (the README's event
/// table: `what`, `detail`) and, where the driver can mend it, for the hint
/// on screen. Each case carries what the log line needs; the words are
/// written here once.
public enum CoreError: Equatable {
    /// The host reset the controller to recover from a failure.
    case controllerReset(reason: String)
    /// Pairing or encryption failed on a link.
    case pairingFailed(PairingFailure)
    /// Pairing with one phone failed too often: only removing the pairing
    /// on both sides mends it.
    case pairingGaveUp
    /// The phone answered encryption with PIN or Key Missing: it forgot
    /// the head unit (the bond stays until a new pairing replaces it).
    case phoneForgot
    /// ANCS kept refusing for lack of security after pairing again.
    case ancsSecurityRefused
    /// iOS does not allow notifications for the head unit.
    case ancsNotAllowed
    /// "Share System Notifications" is off on the iPhone.
    case ancsSharingOff
    /// A phone that connected to the head unit was sent away.
    case accessoryRefused(AccessoryRefusal)
    /// A second phone encrypted while another is the phone.
    case anotherPhone

    /// Why the accessory sent a phone away.
    public enum AccessoryRefusal: Equatable {
        case notAdvertising
        case strangerOutsidePairingMode
        case secondPhone
        case didNotSecure
        case notSecureWhenThePhoneEncrypted
    }

    /// The event's `what`: the part of the head unit it concerns.
    public var what: String {
        switch self {
        case .controllerReset: return "controller"
        case .pairingFailed, .pairingGaveUp: return "pairing"
        case .phoneForgot: return "bond"
        case .ancsSecurityRefused, .ancsNotAllowed, .ancsSharingOff: return "ancs"
        case .accessoryRefused: return "accessory"
        case .anotherPhone: return "phone"
        }
    }

    /// The event's `detail`, in English.
    public var detail: String {
        switch self {
        case .controllerReset(let reason): return reason
        case .pairingFailed(let failure): return failure.description
        case .accessoryRefused(let refusal): return refusal.detail
        case .ancsNotAllowed: return "notifications not allowed for this head unit on the iPhone"
        case .ancsSharingOff: return "notifications not shared with this head unit"
        case .anotherPhone: return "another phone is already connected: one phone at a time"
        case .pairingGaveUp, .phoneForgot, .ancsSecurityRefused: return hint?.english ?? ""
        }
    }

    /// The hint the driver is shown for it, when the driver can mend it.
    public var hint: ScreenTextKey? {
        switch self {
        case .pairingGaveUp, .ancsSecurityRefused: return .hintPairAgain
        case .phoneForgot: return .hintPhoneForgot
        case .ancsNotAllowed: return .hintAllowNotifications
        case .ancsSharingOff: return .hintSharingOff
        case .controllerReset, .pairingFailed, .accessoryRefused, .anotherPhone: return nil
        }
    }
}

extension CoreError.AccessoryRefusal {
    var detail: String {
        switch self {
        case .notAdvertising: return "a phone connected, but the head unit does not advertise"
        case .strangerOutsidePairingMode: return "an unknown phone tried to connect outside pairing mode"
        case .secondPhone: return "a second phone tried to connect while the phone is connected"
        case .didNotSecure: return "a phone that connected outside pairing mode did not pair or encrypt"
        case .notSecureWhenThePhoneEncrypted: return "a link that was not secure when the phone encrypted is not the phone"
        }
    }
}
