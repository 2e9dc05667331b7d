/// A GhostDrop transfer as the screen shows it: a band along the bottom of
/// whatever screen is up (docs/GHOSTDROP.md, "On the screen"). While a
/// file arrives it says the file's name, the percent, the rate and the
/// time left; once it is over, the outcome stays for a few seconds.
public struct TransferBand: Equatable {
    /// The sender's name for the file, as it offered it.
    public var filename: String
    public var status: TransferStatus

    public init(filename: String, status: TransferStatus) {
        self.filename = filename
        self.status = status
    }
}

public enum TransferStatus: Equatable {
    /// `bytes` of `total` held; the smoothed rate (bytes per second) and
    /// the seconds left at it (nil while there is no rate yet).
    case receiving(bytes: Int64, total: Int64, bytesPerSecond: Int64, etaSeconds: Int64?)
    /// Whole and its SHA-256 checked; kept where nothing takes it further
    /// (off the image: no installer).
    case received
    /// An update bundle handed to the installer.
    case installing
    /// A headunit.conf installed; the head unit restarts with it.
    case installed
    /// Not taken: the head unit's reason (name, size, header, a bad
    /// configuration), as the phone also shows it.
    case refused(String)
    /// Stopped by the phone or the driver, or the link lost, with the reason.
    case cancelled(String)

    /// Whether it went as the driver wanted (drawn in the good colour).
    public var isGood: Bool {
        switch self {
        case .receiving, .received, .installing, .installed: return true
        case .refused, .cancelled: return false
        }
    }
}

extension ScreenLocale {
    /// A transfer's rate as the band shows it: "850 B/s", "36.4 kB/s",
    /// "1.2 MB/s" (decimal units, a decimal comma where the language has one).
    public func rateText(bytesPerSecond rate: Int64) -> String {
        if rate < 1000 { return "\(max(rate, 0)) B/s" }
        if rate < 1_000_000 { return "\(decimal(tenths: Int((rate + 50) / 100))) kB/s" }
        return "\(decimal(tenths: Int((rate + 50_000) / 100_000))) MB/s"
    }
}
