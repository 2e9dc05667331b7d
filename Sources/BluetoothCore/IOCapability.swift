/// What the device can show and enter; selects the pairing method (Vol 3
/// Part H 3.5.1). Here rather than in SMP because the configuration file
/// sets it, and the configuration does not link the cryptography.
public enum IOCapability: UInt8, CustomStringConvertible {
    case displayOnly = 0x00
    case displayYesNo = 0x01
    case keyboardOnly = 0x02
    case noInputNoOutput = 0x03
    case keyboardDisplay = 0x04

    public var description: String {
        switch self {
        case .displayOnly: return "DisplayOnly"
        case .displayYesNo: return "DisplayYesNo"
        case .keyboardOnly: return "KeyboardOnly"
        case .noInputNoOutput: return "NoInputNoOutput"
        case .keyboardDisplay: return "KeyboardDisplay"
        }
    }
}
