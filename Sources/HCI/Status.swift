import BluetoothCore

/// An HCI error code (Core Vol 1 Part F), as carried by Command Complete,
/// Command Status, Disconnection Complete and friends.
public struct HCIStatus: Hashable, CustomStringConvertible {
    public let code: UInt8

    public init(_ code: UInt8) { self.code = code }

    public var isSuccess: Bool { code == 0 }

    public static let success = HCIStatus(0x00)
    public static let unknownCommand = HCIStatus(0x01)
    public static let unknownConnectionIdentifier = HCIStatus(0x02)
    public static let hardwareFailure = HCIStatus(0x03)
    public static let authenticationFailure = HCIStatus(0x05)
    public static let pinOrKeyMissing = HCIStatus(0x06)
    public static let memoryCapacityExceeded = HCIStatus(0x07)
    public static let connectionTimeout = HCIStatus(0x08)
    public static let commandDisallowed = HCIStatus(0x0C)
    public static let invalidParameters = HCIStatus(0x12)
    public static let remoteUserTerminated = HCIStatus(0x13)
    public static let remoteLowResources = HCIStatus(0x14)
    public static let remotePowerOff = HCIStatus(0x15)
    public static let localHostTerminated = HCIStatus(0x16)
    public static let unsupportedRemoteFeature = HCIStatus(0x1A)
    public static let unspecifiedError = HCIStatus(0x1F)
    public static let lmpResponseTimeout = HCIStatus(0x22)
    public static let instantPassed = HCIStatus(0x28)
    public static let insufficientSecurity = HCIStatus(0x2F)
    public static let unacceptableConnectionParameters = HCIStatus(0x3B)
    public static let connectionFailedToBeEstablished = HCIStatus(0x3E)
    public static let micFailure = HCIStatus(0x3D)
    public static let connectionTerminatedMICFailure = HCIStatus(0x3D)

    public var name: String {
        switch code {
        case 0x00: return "Success"
        case 0x01: return "Unknown HCI Command"
        case 0x02: return "Unknown Connection Identifier"
        case 0x03: return "Hardware Failure"
        case 0x05: return "Authentication Failure"
        case 0x06: return "PIN or Key Missing"
        case 0x07: return "Memory Capacity Exceeded"
        case 0x08: return "Connection Timeout"
        case 0x0C: return "Command Disallowed"
        case 0x0D: return "Connection Rejected due to Limited Resources"
        case 0x11: return "Unsupported Feature or Parameter Value"
        case 0x12: return "Invalid HCI Command Parameters"
        case 0x13: return "Remote User Terminated Connection"
        case 0x14: return "Remote Device Terminated Connection due to Low Resources"
        case 0x15: return "Remote Device Terminated Connection due to Power Off"
        case 0x16: return "Connection Terminated by Local Host"
        case 0x1A: return "Unsupported Remote Feature"
        case 0x1F: return "Unspecified Error"
        case 0x22: return "LMP/LL Response Timeout"
        case 0x28: return "Instant Passed"
        case 0x2F: return "Insufficient Security"
        case 0x3B: return "Unacceptable Connection Parameters"
        case 0x3D: return "Connection Terminated due to MIC Failure"
        case 0x3E: return "Connection Failed to be Established"
        default: return "HCI error"
        }
    }

    public var description: String { "\(name) (0x\(hex(code, digits: 2)))" }
}
