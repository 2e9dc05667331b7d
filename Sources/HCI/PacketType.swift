/// The H4 packet indicator: the one byte in front of every HCI packet on a
/// UART, a TCP simulation link, a user-channel socket and in btsnoop records.
public enum HCIPacketType: UInt8 {
    case command = 0x01
    case aclData = 0x02
    case scoData = 0x03
    case event = 0x04
    case isoData = 0x05
}
