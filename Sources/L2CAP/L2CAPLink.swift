import BluetoothCore

/// What L2CAP knows about one LE-U logical link.
public struct L2CAPLink {
    public let handle: ConnectionHandle
    public let role: LinkRole
    public let peer: BluetoothAddress

    public init(handle: ConnectionHandle, role: LinkRole, peer: BluetoothAddress) {
        self.handle = handle
        self.role = role
        self.peer = peer
    }
}
