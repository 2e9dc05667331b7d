/// What makes two envelopes the same delivery: the session and the
/// SHA-256 of the sealed bytes (a resend after a lost receipt is byte-identical).
public struct DeliveryKey: Hashable {
    public let session: SessionID
    public let digest: [UInt8]

    public init(session: SessionID, digest: [UInt8]) {
        self.session = session
        self.digest = digest
    }
}

/// The last deliveries taken, so a resend is acknowledged again but shown once.
public struct DeliveryLog {
    public static let capacity = 256
    private var order: [DeliveryKey] = []
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
