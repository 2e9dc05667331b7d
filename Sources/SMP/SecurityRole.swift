/// Which side of pairing the head unit plays on a connection (Vol 3 Part H
/// 2.3): the link's central is always the initiator, its peripheral the
/// responder. Fixed for the life of the connection.
public enum SecurityRole: Equatable, CustomStringConvertible {
    /// We are the central: we send the Pairing Request and start encryption.
    case initiator
    /// We are the peripheral: the phone pairs us (a Security Request may ask
    /// it to) and starts encryption; our controller asks us for the key.
    case responder

    public var description: String {
        switch self {
        case .initiator: return "initiator"
        case .responder: return "responder"
        }
    }
}
