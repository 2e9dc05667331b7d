import BluetoothCore

/// A command opcode: OGF in the top 6 bits, OCF in the low 10.
public struct HCIOpcode: Hashable, CustomStringConvertible {
    public let value: UInt16

    public init(_ value: UInt16) { self.value = value }
    public init(ogf: UInt16, ocf: UInt16) { value = ogf << 10 | (ocf & 0x3FF) }

    public var ogf: UInt16 { value >> 10 }
    public var ocf: UInt16 { value & 0x3FF }

    public var description: String { name ?? "opcode 0x\(hex(value, digits: 4))" }

    // Link control
    public static let disconnect = HCIOpcode(ogf: 0x01, ocf: 0x0006)
    public static let readRemoteVersionInformation = HCIOpcode(ogf: 0x01, ocf: 0x001D)
    // Controller and baseband
    public static let setEventMask = HCIOpcode(ogf: 0x03, ocf: 0x0001)
    public static let reset = HCIOpcode(ogf: 0x03, ocf: 0x0003)
    public static let writeLEHostSupport = HCIOpcode(ogf: 0x03, ocf: 0x006D)
    // Status parameters
    public static let readEncryptionKeySize = HCIOpcode(ogf: 0x05, ocf: 0x0008)
    // Informational
    public static let readLocalVersionInformation = HCIOpcode(ogf: 0x04, ocf: 0x0001)
    public static let readLocalSupportedCommands = HCIOpcode(ogf: 0x04, ocf: 0x0002)
    public static let readLocalSupportedFeatures = HCIOpcode(ogf: 0x04, ocf: 0x0003)
    public static let readBufferSize = HCIOpcode(ogf: 0x04, ocf: 0x0005)
    public static let readBDAddr = HCIOpcode(ogf: 0x04, ocf: 0x0009)
    // LE controller
    public static let leSetEventMask = HCIOpcode(ogf: 0x08, ocf: 0x0001)
    public static let leReadBufferSize = HCIOpcode(ogf: 0x08, ocf: 0x0002)
    public static let leReadLocalSupportedFeatures = HCIOpcode(ogf: 0x08, ocf: 0x0003)
    public static let leSetRandomAddress = HCIOpcode(ogf: 0x08, ocf: 0x0005)
    public static let leSetAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0006)
    public static let leSetAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0008)
    public static let leSetScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0009)
    public static let leSetAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x000A)
    public static let leSetScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x000B)
    public static let leSetScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x000C)
    public static let leCreateConnection = HCIOpcode(ogf: 0x08, ocf: 0x000D)
    public static let leCreateConnectionCancel = HCIOpcode(ogf: 0x08, ocf: 0x000E)
    public static let leReadFilterAcceptListSize = HCIOpcode(ogf: 0x08, ocf: 0x000F)
    public static let leClearFilterAcceptList = HCIOpcode(ogf: 0x08, ocf: 0x0010)
    public static let leAddDeviceToFilterAcceptList = HCIOpcode(ogf: 0x08, ocf: 0x0011)
    public static let leConnectionUpdate = HCIOpcode(ogf: 0x08, ocf: 0x0013)
    public static let leReadRemoteFeatures = HCIOpcode(ogf: 0x08, ocf: 0x0016)
    public static let leEncrypt = HCIOpcode(ogf: 0x08, ocf: 0x0017)
    public static let leRand = HCIOpcode(ogf: 0x08, ocf: 0x0018)
    public static let leEnableEncryption = HCIOpcode(ogf: 0x08, ocf: 0x0019)
    public static let leLongTermKeyRequestReply = HCIOpcode(ogf: 0x08, ocf: 0x001A)
    public static let leLongTermKeyRequestNegativeReply = HCIOpcode(ogf: 0x08, ocf: 0x001B)
    public static let leRemoteConnectionParameterRequestReply = HCIOpcode(ogf: 0x08, ocf: 0x0020)
    public static let leRemoteConnectionParameterRequestNegativeReply = HCIOpcode(ogf: 0x08, ocf: 0x0021)
    public static let leSetDataLength = HCIOpcode(ogf: 0x08, ocf: 0x0022)
    public static let leAddDeviceToResolvingList = HCIOpcode(ogf: 0x08, ocf: 0x0027)
    public static let leClearResolvingList = HCIOpcode(ogf: 0x08, ocf: 0x0029)
    public static let leReadResolvingListSize = HCIOpcode(ogf: 0x08, ocf: 0x002A)
    public static let leSetAddressResolutionEnable = HCIOpcode(ogf: 0x08, ocf: 0x002D)
    public static let leReadNumberOfSupportedAdvertisingSets = HCIOpcode(ogf: 0x08, ocf: 0x003B)
    public static let leReadBufferSizeV2 = HCIOpcode(ogf: 0x08, ocf: 0x0060)

    private static let names: [UInt16: String] = [
        disconnect.value: "Disconnect",
        readRemoteVersionInformation.value: "Read_Remote_Version_Information",
        setEventMask.value: "Set_Event_Mask",
        reset.value: "Reset",
        writeLEHostSupport.value: "Write_LE_Host_Support",
        readEncryptionKeySize.value: "Read_Encryption_Key_Size",
        readLocalVersionInformation.value: "Read_Local_Version_Information",
        readLocalSupportedCommands.value: "Read_Local_Supported_Commands",
        readLocalSupportedFeatures.value: "Read_Local_Supported_Features",
        readBufferSize.value: "Read_Buffer_Size",
        readBDAddr.value: "Read_BD_ADDR",
        leSetEventMask.value: "LE_Set_Event_Mask",
        leReadBufferSize.value: "LE_Read_Buffer_Size",
        leReadLocalSupportedFeatures.value: "LE_Read_Local_Supported_Features",
        leSetRandomAddress.value: "LE_Set_Random_Address",
        leSetAdvertisingParameters.value: "LE_Set_Advertising_Parameters",
        leSetAdvertisingData.value: "LE_Set_Advertising_Data",
        leSetScanResponseData.value: "LE_Set_Scan_Response_Data",
        leSetAdvertisingEnable.value: "LE_Set_Advertising_Enable",
        leSetScanParameters.value: "LE_Set_Scan_Parameters",
        leSetScanEnable.value: "LE_Set_Scan_Enable",
        leCreateConnection.value: "LE_Create_Connection",
        leCreateConnectionCancel.value: "LE_Create_Connection_Cancel",
        leReadFilterAcceptListSize.value: "LE_Read_Filter_Accept_List_Size",
        leClearFilterAcceptList.value: "LE_Clear_Filter_Accept_List",
        leAddDeviceToFilterAcceptList.value: "LE_Add_Device_To_Filter_Accept_List",
        leConnectionUpdate.value: "LE_Connection_Update",
        leReadRemoteFeatures.value: "LE_Read_Remote_Features",
        leEncrypt.value: "LE_Encrypt",
        leRand.value: "LE_Rand",
        leEnableEncryption.value: "LE_Enable_Encryption",
        leLongTermKeyRequestReply.value: "LE_Long_Term_Key_Request_Reply",
        leLongTermKeyRequestNegativeReply.value: "LE_Long_Term_Key_Request_Negative_Reply",
        leRemoteConnectionParameterRequestReply.value: "LE_Remote_Connection_Parameter_Request_Reply",
        leRemoteConnectionParameterRequestNegativeReply.value: "LE_Remote_Connection_Parameter_Request_Negative_Reply",
        leSetDataLength.value: "LE_Set_Data_Length",
        leAddDeviceToResolvingList.value: "LE_Add_Device_To_Resolving_List",
        leClearResolvingList.value: "LE_Clear_Resolving_List",
        leReadResolvingListSize.value: "LE_Read_Resolving_List_Size",
        leSetAddressResolutionEnable.value: "LE_Set_Address_Resolution_Enable",
        leReadNumberOfSupportedAdvertisingSets.value: "LE_Read_Number_of_Supported_Advertising_Sets",
        leReadBufferSizeV2.value: "LE_Read_Buffer_Size_v2",
    ]

    public var name: String? { HCIOpcode.names[value] }
}
