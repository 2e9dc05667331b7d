import BluetoothCore

/// The commands the host sends only when the controller lists them in its
/// Supported_Commands (Core Vol 4 Part E 6.27, octet and bit below). LE
/// controllers differ here: Bumble's has no Read Encryption Key Size,
/// many 4.x chips have no LL Privacy (no resolving list), older ones no
/// LE Set Data Length. What every LE controller must have (Reset, the
/// legacy advertising, scanning and connection commands, encryption) is
/// sent without a check: a few chips report those bits wrongly, and
/// refusing to advertise because of it would help nobody.
public enum SupportedCommand: CaseIterable, CustomStringConvertible {
    case readRemoteVersionInformation
    case readEncryptionKeySize
    case leReadFilterAcceptListSize
    case leClearFilterAcceptList
    case leAddDeviceToFilterAcceptList
    case leRemoteConnectionParameterRequestReply
    case leRemoteConnectionParameterRequestNegativeReply
    case leSetDataLength
    case leAddDeviceToResolvingList
    case leClearResolvingList
    case leReadResolvingListSize
    case leSetAddressResolutionEnable
    case leSetAdvertisingSetRandomAddress
    case leSetExtendedAdvertisingParameters
    case leSetExtendedAdvertisingData
    case leSetExtendedScanResponseData
    case leSetExtendedAdvertisingEnable
    case leReadNumberOfSupportedAdvertisingSets
    case leSetExtendedScanParameters
    case leSetExtendedScanEnable
    case leExtendedCreateConnection
    case leReadBufferSizeV2

    /// Octet and bit in the Supported_Commands mask.
    public var position: (octet: Int, bit: Int) {
        switch self {
        case .readRemoteVersionInformation: return (2, 7)
        case .readEncryptionKeySize: return (20, 4)
        case .leReadFilterAcceptListSize: return (26, 6)
        case .leClearFilterAcceptList: return (26, 7)
        case .leAddDeviceToFilterAcceptList: return (27, 0)
        case .leRemoteConnectionParameterRequestReply: return (33, 4)
        case .leRemoteConnectionParameterRequestNegativeReply: return (33, 5)
        case .leSetDataLength: return (33, 6)
        case .leAddDeviceToResolvingList: return (34, 3)
        case .leClearResolvingList: return (34, 5)
        case .leReadResolvingListSize: return (34, 6)
        case .leSetAddressResolutionEnable: return (35, 1)
        case .leSetAdvertisingSetRandomAddress: return (36, 1)
        case .leSetExtendedAdvertisingParameters: return (36, 2)
        case .leSetExtendedAdvertisingData: return (36, 3)
        case .leSetExtendedScanResponseData: return (36, 4)
        case .leSetExtendedAdvertisingEnable: return (36, 5)
        case .leReadNumberOfSupportedAdvertisingSets: return (36, 7)
        case .leSetExtendedScanParameters: return (37, 5)
        case .leSetExtendedScanEnable: return (37, 6)
        case .leExtendedCreateConnection: return (37, 7)
        case .leReadBufferSizeV2: return (41, 5)
        }
    }

    public var opcode: HCIOpcode {
        switch self {
        case .readRemoteVersionInformation: return .readRemoteVersionInformation
        case .readEncryptionKeySize: return .readEncryptionKeySize
        case .leReadFilterAcceptListSize: return .leReadFilterAcceptListSize
        case .leClearFilterAcceptList: return .leClearFilterAcceptList
        case .leAddDeviceToFilterAcceptList: return .leAddDeviceToFilterAcceptList
        case .leRemoteConnectionParameterRequestReply: return .leRemoteConnectionParameterRequestReply
        case .leRemoteConnectionParameterRequestNegativeReply: return .leRemoteConnectionParameterRequestNegativeReply
        case .leSetDataLength: return .leSetDataLength
        case .leAddDeviceToResolvingList: return .leAddDeviceToResolvingList
        case .leClearResolvingList: return .leClearResolvingList
        case .leReadResolvingListSize: return .leReadResolvingListSize
        case .leSetAddressResolutionEnable: return .leSetAddressResolutionEnable
        case .leSetAdvertisingSetRandomAddress: return .leSetAdvertisingSetRandomAddress
        case .leSetExtendedAdvertisingParameters: return .leSetExtendedAdvertisingParameters
        case .leSetExtendedAdvertisingData: return .leSetExtendedAdvertisingData
        case .leSetExtendedScanResponseData: return .leSetExtendedScanResponseData
        case .leSetExtendedAdvertisingEnable: return .leSetExtendedAdvertisingEnable
        case .leReadNumberOfSupportedAdvertisingSets: return .leReadNumberOfSupportedAdvertisingSets
        case .leSetExtendedScanParameters: return .leSetExtendedScanParameters
        case .leSetExtendedScanEnable: return .leSetExtendedScanEnable
        case .leExtendedCreateConnection: return .leExtendedCreateConnection
        case .leReadBufferSizeV2: return .leReadBufferSizeV2
        }
    }

    /// The checked command with this opcode; nil for one sent unchecked.
    public init?(opcode: HCIOpcode) {
        guard let found = SupportedCommand.allCases.first(where: { $0.opcode == opcode }) else { return nil }
        self = found
    }

    public var description: String { opcode.description }
}

extension ControllerInfo {
    /// Whether the controller's Supported_Commands lists `command`.
    public func supports(_ command: SupportedCommand) -> Bool {
        let (octet, bit) = command.position
        guard octet < supportedCommands.count else { return false }
        return supportedCommands[octet] & (1 << UInt8(bit)) != 0
    }
}
