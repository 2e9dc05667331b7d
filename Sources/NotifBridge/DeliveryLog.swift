/// What makes two envelopes the same delivery: the session and the
/// SHA-256 of the sealed bytes (a resend after a lost receipt is byte-identical).
public struct DeliveryKey: Hashable {
    public static let digestLength = 32
    public let session: SessionID
    public let digest: [UInt8]

    public init(session: SessionID, digest: [UInt8]) {
        self.session = session
        self.digest = digest
    }
}

/// The last deliveries taken, so a resend is acknowledged again but shown
/// once; stored in the key file, so also once across a restart.
public struct DeliveryLog: Equatable {
    public static let capacity = 256
    /// Oldest first.
    private(set) var order: [DeliveryKey] = []
    private var members: Set<DeliveryKey> = []

    public init() {}

    public var count: Int { order.count }

    public func contains(_ key: DeliveryKey) -> Bool { members.contains(key) }

    public mutating func insert(_ key: DeliveryKey) {
        guard members.insert(key).inserted else { return }
        order.append(key)
        if order.count > DeliveryLog.capacity {
            members.remove(order.removeFirst())
        }
    }
}
