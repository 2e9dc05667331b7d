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
/// Every address is counted apart (the identity address when the
/// connection resolved to a bond, else the address on air), and all
/// attempts together: a flood from rotating addresses (each one new to
/// the per-address counts) meets `maximumAttemptsPerWindow` attempts per
/// `windowMilliseconds`, after which every Pairing Request is answered
/// Repeated Attempts until the window frees up. Encryption with a stored
/// bond is never an attempt: the owner's phone reconnects whatever the
/// counts say.
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
    /// At most this many pairings start in any `windowMilliseconds`, from
    /// all addresses together. A phone pairs once; a driver who mistypes
    /// the passkey tries two or three times.
    public let maximumAttemptsPerWindow: Int
    public let windowMilliseconds: Int64
    private var records: [BluetoothAddress: Record] = [:]
    /// When the attempts of the current window started, oldest first
    /// (at most `maximumAttemptsPerWindow` of them).
    private var recentStarts: [Instant] = []

    public init(initialBackoffMilliseconds: Int64 = 2_000, maximumBackoffMilliseconds: Int64 = 60_000,
                maximumConsecutiveFailures: Int = 5, maximumStaleBondRecoveries: Int = 2,
                maximumAttemptsPerWindow: Int = 6, windowMilliseconds: Int64 = 60_000) {
        self.initialBackoffMilliseconds = initialBackoffMilliseconds
        self.maximumBackoffMilliseconds = maximumBackoffMilliseconds
        self.maximumConsecutiveFailures = maximumConsecutiveFailures
        self.maximumStaleBondRecoveries = maximumStaleBondRecoveries
        self.maximumAttemptsPerWindow = max(1, maximumAttemptsPerWindow)
        self.windowMilliseconds = windowMilliseconds
    }

    /// When the next pairing from any address may start (nil: now).
    public func totalNotBefore(now: Instant) -> Instant? {
        dropExpiredStarts(now)
        guard recentStarts.count >= maximumAttemptsPerWindow, let oldest = recentStarts.first else { return nil }
        return oldest.adding(milliseconds: windowMilliseconds)
    }

    /// A pairing starts (a Pairing Request answered or sent).
    func recordAttemptStart(now: Instant) {
        dropExpiredStarts(now)
        recentStarts.append(now)
        if recentStarts.count > maximumAttemptsPerWindow { recentStarts.removeFirst() }
    }

    private func dropExpiredStarts(_ now: Instant) {
        while let oldest = recentStarts.first, oldest.adding(milliseconds: windowMilliseconds) <= now {
            recentStarts.removeFirst()
        }
    }

    /// What the console shows.
    public struct Summary: Equatable {
        /// Pairings started in the last window, from any address.
        public var recentAttempts: Int
        public var maximumAttempts: Int
        public var windowSeconds: Int64
        /// Addresses that must wait out a back-off before pairing again.
        public var waiting: Int
        /// Addresses refused until the user opens pairing mode.
        public var givenUp: Int

        public var text: String {
            "pairing attempts: \(recentAttempts) in the last \(windowSeconds) s (at most \(maximumAttempts)), "
                + "\(waiting) address\(waiting == 1 ? "" : "es") waiting, \(givenUp) given up"
        }
    }

    public func summary(now: Instant) -> Summary {
        dropExpiredStarts(now)
        var waiting = 0
        var givenUp = 0
        for record in records.values {
            if record.consecutiveFailures >= maximumConsecutiveFailures {
                givenUp += 1
            } else if record.notBefore > now {
                waiting += 1
            }
        }
        return Summary(recentAttempts: recentStarts.count, maximumAttempts: maximumAttemptsPerWindow,
                       windowSeconds: windowMilliseconds / 1000, waiting: waiting, givenUp: givenUp)
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

    /// The user opened pairing mode: every count starts over.
    public func resetAll() {
        records = [:]
        recentStarts = []
    }
}
