/// Our role on an LE link. HCI learns it from the connection complete event;
/// L2CAP (who may ask for parameter updates), SMP (who initiates pairing) and
/// GATT all need it.
public enum LinkRole: UInt8 {
    case central = 0x00
    case peripheral = 0x01
}
