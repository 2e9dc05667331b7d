import BluetoothCore
import ScreenValues

/// What the screen's transfer band shows (`ScreenModel.transfer`): the file
/// a session is receiving with its figures, then for a few seconds how it
/// ended. One band: the newest session that was offered a file has it.
struct GhostDropBand {
    /// The session the band follows; an outcome belongs to no session.
    var session: GhostDropCarrier.Key?
    var band: TransferBand
    /// When the outcome leaves the screen; nil while the file arrives.
    var until: Instant?

    /// How long an outcome stays: long enough to be read at a glance,
    /// short enough not to hide the cards for long.
    static let outcomeMilliseconds: Int64 = 6000

    /// The band at `now`, or nil once its outcome has had its time.
    func shown(at now: Instant) -> TransferBand? {
        if let until, now >= until { return nil }
        return band
    }

    /// The session's file as it arrives.
    static func receiving(_ session: GhostDropCarrier.Key, _ filename: String, bytes: Int64, total: Int64) -> GhostDropBand {
        GhostDropBand(session: session, band: TransferBand(filename: filename, status: .receiving(bytes: bytes, total: total,
                                                                                                 bytesPerSecond: 0, etaSeconds: nil)))
    }

    /// How it ended, shown from `now` for `outcomeMilliseconds`.
    static func outcome(_ filename: String, _ status: TransferStatus, now: Instant) -> GhostDropBand {
        GhostDropBand(session: nil, band: TransferBand(filename: filename, status: status),
                      until: now.adding(milliseconds: outcomeMilliseconds))
    }

    /// Whether `session`'s file is arriving on this band.
    func follows(_ session: GhostDropCarrier.Key) -> Bool { self.session == session && until == nil }
}
