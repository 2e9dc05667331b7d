import BluetoothCore

/// Repeated attempts (Vol 3 Part H 2.3.6): after each failed pairing the
/// next attempt with the same peer waits, and the wait doubles with every
/// further failure. After too many failures in a row pairing stops until
/// the user intervenes.
///
/// It also counts bonds the phone forgot ("PIN or Key Missing") without a
/// successful encryption in between: a phone that keeps dropping its keys
/// is flapping, and pairing again would only repeat the cycle.
///
/// Keep one limiter for the whole head unit and hand it to every
/// connection's `SecurityManager`, so the counts survive reconnects.
public final class PairingAttemptLimiter {
    struct Record {
        var consecutiveFailures: Int
        var notBefore: Instant
        var staleBonds: Int
    }

    public let initialBackoffMilliseconds: Int64
    public let maximumBackoffMilliseconds: Int64
    public let maximumConsecutiveFailures: Int
    public let maximumStaleBondRecoveries: Int
    private var records: [BluetoothAddress: Record] = [:]

    public init(initialBackoffMilliseconds: Int64 = 2_000, maximumBackoffMilliseconds: Int64 = 60_000,
                maximumConsecutiveFailures: Int = 5, maximumStaleBondRecoveries: Int = 2) {
        self.initialBackoffMilliseconds = initialBackoffMilliseconds
        self.maximumBackoffMilliseconds = maximumBackoffMilliseconds
        self.maximumConsecutiveFailures = maximumConsecutiveFailures
        self.maximumStaleBondRecoveries = maximumStaleBondRecoveries
    }

    /// When pairing with `peer` may start again (nil: now).
    public func notBefore(_ peer: BluetoothAddress, now: Instant) -> Instant? {
        guard let record = records[peer], record.notBefore > now else { return nil }
        return record.notBefore
    }

    /// True once `peer` failed `maximumConsecutiveFailures` times in a row.
    public func hasGivenUp(_ peer: BluetoothAddress) -> Bool {
        (records[peer]?.consecutiveFailures ?? 0) >= maximumConsecutiveFailures
    }

    public func consecutiveFailures(_ peer: BluetoothAddress) -> Int { records[peer]?.consecutiveFailures ?? 0 }

    func recordFailure(_ peer: BluetoothAddress, now: Instant) {
        var record = records[peer] ?? Record(consecutiveFailures: 0, notBefore: now, staleBonds: 0)
        record.consecutiveFailures += 1
        var wait = initialBackoffMilliseconds
        for _ in 1..<record.consecutiveFailures where wait < maximumBackoffMilliseconds { wait *= 2 }
        record.notBefore = now.adding(milliseconds: min(wait, maximumBackoffMilliseconds))
        records[peer] = record
        // Bound the table: a head unit meets few phones, but addresses rotate.
        if records.count > 32, let oldest = records.min(by: { $0.value.notBefore < $1.value.notBefore })?.key {
            records[oldest] = nil
        }
    }

    /// A pairing succeeded: the back-off starts over. Stale bonds stay
    /// counted until encryption with the new bond works on a reconnect.
    func recordPairingSuccess(_ peer: BluetoothAddress) {
        guard var record = records[peer] else { return }
        record.consecutiveFailures = 0
        record.notBefore = Instant.zero
        records[peer] = record.staleBonds == 0 ? nil : record
    }

    /// Encryption with a stored bond worked: the phone keeps its keys.
    func recordEncryptionSuccess(_ peer: BluetoothAddress) { records[peer] = nil }

    /// The phone forgot a bond. Returns whether pairing again is still
    /// reasonable (false once it happened too often without a successful
    /// reconnect in between).
    func recordStaleBond(_ peer: BluetoothAddress, now: Instant) -> Bool {
        var record = records[peer] ?? Record(consecutiveFailures: 0, notBefore: now, staleBonds: 0)
        record.staleBonds += 1
        records[peer] = record
        return record.staleBonds <= maximumStaleBondRecoveries
    }

    /// Forget the failures of `peer` (the user asked to pair again).
    public func reset(_ peer: BluetoothAddress) { records[peer] = nil }

    public func resetAll() { records = [:] }
}
