import BluetoothCore

/// How the two devices authenticate each other (Vol 3 Part H 2.3.5.1).
public enum PairingMethod: Equatable, CustomStringConvertible {
    case justWorks
    case numericComparison
    case passkeyEntry

    /// The name used in the `paired` event.
    public var eventName: String {
        switch self {
        case .justWorks: return "just-works"
        case .numericComparison: return "numeric"
        case .passkeyEntry: return "passkey"
        }
    }

    public var description: String { eventName }

    /// Only Just Works leaves a man in the middle undetected.
    public var providesMITMProtection: Bool { self != .justWorks }
}

/// Who types the passkey in Passkey Entry.
enum PasskeyRole: Equatable {
    /// We show it, the phone's user types it.
    case display
    /// The phone shows it, our user types it.
    case input
    /// Both keyboards: the user makes one up and types it on both.
    case bothInput
}

/// The method chosen from the IO capabilities (Vol 3 Part H Tables 2.7 and
/// 2.8), seen from the initiator (`select`), or from the responder
/// (`seenByResponder`).
struct MethodSelection: Equatable {
    var method: PairingMethod
    var passkeyRole: PasskeyRole?

    /// The same method with the passkey roles swapped: when the initiator
    /// displays, the responder types, and the other way round.
    var seenByResponder: MethodSelection {
        switch passkeyRole {
        case .display?: return MethodSelection(method: method, passkeyRole: .input)
        case .input?: return MethodSelection(method: method, passkeyRole: .display)
        default: return self
        }
    }

    static func select(initiator: PairingFeatures, responder: PairingFeatures, secureConnections: Bool) -> MethodSelection {
        // Without MITM on either side the IO capabilities do not matter.
        guard initiator.authReq.mitm || responder.authReq.mitm else {
            return MethodSelection(method: .justWorks, passkeyRole: nil)
        }
        return table(initiator.ioCapability, responder.ioCapability, secureConnections: secureConnections)
    }

    static func table(_ i: IOCapability, _ r: IOCapability, secureConnections sc: Bool) -> MethodSelection {
        let justWorks = MethodSelection(method: .justWorks, passkeyRole: nil)
        let numeric = MethodSelection(method: .numericComparison, passkeyRole: nil)
        let weDisplay = MethodSelection(method: .passkeyEntry, passkeyRole: .display)
        let weInput = MethodSelection(method: .passkeyEntry, passkeyRole: .input)
        switch (i, r) {
        case (.noInputNoOutput, _), (_, .noInputNoOutput):
            return justWorks
        case (.displayOnly, .displayOnly), (.displayOnly, .displayYesNo),
             (.displayYesNo, .displayOnly):
            return justWorks
        case (.displayOnly, .keyboardOnly), (.displayOnly, .keyboardDisplay),
             (.displayYesNo, .keyboardOnly), (.keyboardDisplay, .keyboardOnly):
            return weDisplay
        case (.keyboardOnly, .displayOnly), (.keyboardOnly, .displayYesNo), (.keyboardOnly, .keyboardDisplay):
            return weInput
        case (.keyboardOnly, .keyboardOnly):
            return MethodSelection(method: .passkeyEntry, passkeyRole: .bothInput)
        case (.displayYesNo, .displayYesNo):
            return sc ? numeric : justWorks
        case (.displayYesNo, .keyboardDisplay), (.keyboardDisplay, .keyboardDisplay):
            return sc ? numeric : weDisplay
        case (.keyboardDisplay, .displayOnly):
            return weInput
        case (.keyboardDisplay, .displayYesNo):
            return sc ? numeric : weInput
        }
    }
}
