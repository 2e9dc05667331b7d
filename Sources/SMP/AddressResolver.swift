import BluetoothCore

/// Which bonded peer a device seen at some address is, whatever it
/// advertises: its identity address, or a resolvable private address that
/// the peer's IRK resolves (Vol 6 Part B 1.3.2.3). An iPhone whose app is in
/// the background advertises neither a service UUID nor a name
/// (docs/PROTOCOL.md §7), so its IRK is the only way to know it.
///
/// Sans-I/O: given the bonds, asked about addresses. A scan sees the same
/// address about once a second for up to 15 minutes, and many others around
/// it, so each address is resolved once (one AES per IRK) and the answer is
/// kept; at most `capacity` answers are kept, the oldest going first. New
/// bonds drop every answer: an address no key resolved may be the new peer's.
public struct AddressResolver<Peer: Hashable> {
    public struct Entry {
        public var peer: Peer
        public var bond: BondRecord

        public init(peer: Peer, bond: BondRecord) {
            self.peer = peer
            self.bond = bond
        }
    }

    public private(set) var entries: [Entry] = []
    public let capacity: Int
    /// How many times ah() ran: one per resolvable private address and IRK
    /// not seen before.
    public private(set) var hashesComputed = 0

    private enum Answer {
        case peer(Peer)
        case nobody
    }
    private var answers: [BluetoothAddress: Answer] = [:]
    private var order = FIFO<BluetoothAddress>()

    public init(capacity: Int = 256) {
        self.capacity = max(1, capacity)
    }

    /// The bonds to recognise from now on.
    public mutating func setBonds(_ entries: [Entry]) {
        self.entries = entries
        answers.removeAll()
        order.removeAll()
    }

    /// True when `peer` can be recognised by its address: its bond has a
    /// usable IRK, so a resolvable private address that does not resolve is
    /// not this peer.
    public func recognises(_ peer: Peer) -> Bool {
        entries.contains { entry in
            guard entry.peer == peer, let irk = entry.bond.peerIRK else { return false }
            return !irk.isAllZero
        }
    }

    /// The bonded peer at `address`, or nil for a device no bond knows.
    public mutating func owner(of address: BluetoothAddress) -> Peer? {
        if let answer = answers[address] {
            if case .peer(let peer) = answer { return peer }
            return nil
        }
        let answer = resolve(address)
        if order.count >= capacity, let oldest = order.popFirst() { answers[oldest] = nil }
        answers[address] = answer
        order.append(address)
        if case .peer(let peer) = answer { return peer }
        return nil
    }

    private mutating func resolve(_ address: BluetoothAddress) -> Answer {
        for entry in entries where entry.bond.isIdentity(address) { return .peer(entry.peer) }
        guard address.isResolvablePrivate else { return .nobody }
        for entry in entries {
            guard let irk = entry.bond.peerIRK, !irk.isAllZero else { continue }
            hashesComputed += 1
            if irk.resolves(address) { return .peer(entry.peer) }
        }
        return .nobody
    }
}
