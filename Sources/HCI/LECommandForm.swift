import BluetoothCore

/// Which of the two forms of the LE advertising, scanning and initiating
/// commands the host uses with a controller, chosen once from its
/// description.
///
/// Core Vol 4 Part E 3.1.1: once a host has used any of the extended
/// ("set") commands, the controller may refuse every legacy advertising,
/// scanning and initiating command with Command Disallowed until HCI
/// Reset, and the other way round. Real chips do. So the head unit never
/// mixes: advertising sets only where the controller can also scan and
/// initiate the extended way; otherwise everything legacy, and the
/// advertisement's combined payload goes on air through the legacy
/// advertising commands.
public enum LECommandForm: Equatable, CustomStringConvertible {
    /// LE Set Advertising Parameters / Data / Scan Response Data / Enable,
    /// LE Set Scan Parameters / Enable, LE Create Connection.
    case legacy
    /// Advertising sets (legacy PDUs), LE Set Extended Scan Parameters /
    /// Enable and LE Extended Create Connection on LE 1M: the controller has
    /// this many advertising sets.
    case extended(advertisingSets: Int)

    public var description: String {
        switch self {
        case .legacy: return "legacy advertising, scanning and connecting"
        case .extended(let sets): return "extended advertising (\(sets) set\(sets == 1 ? "" : "s")), scanning and connecting"
        }
    }

    public var isExtended: Bool { self != .legacy }
}

extension ControllerInfo {
    /// LE Set Extended Scan Parameters, LE Set Extended Scan Enable and LE
    /// Extended Create Connection (Supported_Commands octet 37, bits 5–7).
    public var supportsExtendedScanningAndInitiating: Bool {
        [.leSetExtendedScanParameters, .leSetExtendedScanEnable, .leExtendedCreateConnection]
            .allSatisfy { supports($0) }
    }

    /// The extended form where the controller has advertising sets (and
    /// said how many) and the extended scanning and initiating commands;
    /// the legacy form otherwise, so that nothing is ever mixed.
    public var commandForm: LECommandForm {
        guard supportsAdvertisingSets, let sets = advertisingSets, sets > 0, supportsExtendedScanningAndInitiating else {
            return .legacy
        }
        return .extended(advertisingSets: sets)
    }

    /// Why a controller with advertising sets is still driven the legacy
    /// way; nil when it is not (or has no sets).
    var legacyFormReason: String? {
        guard supportsAdvertisingSets, commandForm == .legacy else { return nil }
        guard supportsExtendedScanningAndInitiating else {
            return "the controller has advertising sets but no extended scanning or connecting, and may refuse"
                + " legacy and set commands mixed (Core Vol 4 Part E 3.1.1)"
        }
        return "number of advertising sets unknown"
    }
}

// MARK: - Extended scanning and initiating (Core Vol 4 Part E 7.8.64–7.8.66)

extension HCIOpcode {
    public static let leSetExtendedScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x0041)
    public static let leSetExtendedScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x0042)
    public static let leExtendedCreateConnection = HCIOpcode(ogf: 0x08, ocf: 0x0043)
}

extension HCICommand {
    /// LE 1M only (Scanning_PHYs 0x01): legacy PDUs, what iPhones send, are
    /// on LE 1M. Interval and window in 0.625 ms units, as the legacy command.
    public static func leSetExtendedScanParameters(active: Bool, interval: UInt16, window: UInt16,
                                                   ownAddressType: UInt8 = 0, filterPolicy: UInt8 = 0) -> HCICommand {
        var w = ByteWriter(capacity: 8)
        w.u8(ownAddressType)
        w.u8(filterPolicy)
        w.u8(0x01) // scanning PHYs: LE 1M
        w.u8(active ? 1 : 0)
        w.u16(interval)
        w.u16(window)
        return HCICommand(.leSetExtendedScanParameters, w.bytes)
    }

    /// Scans until disabled (Duration 0, Period 0).
    public static func leSetExtendedScanEnable(_ enable: Bool, filterDuplicates: Bool) -> HCICommand {
        HCICommand(.leSetExtendedScanEnable, [enable ? 1 : 0, filterDuplicates ? 1 : 0, 0, 0, 0, 0])
    }

    /// LE Create Connection's fields for LE 1M only (Initiating_PHYs 0x01);
    /// LE Create Connection Cancel cancels it too (7.8.13).
    public static func leExtendedCreateConnection(peer: BluetoothAddress, parameters p: ConnectionParameters,
                                                  scanInterval: UInt16 = 96, scanWindow: UInt16 = 48,
                                                  ownAddressType: UInt8 = 0) -> HCICommand {
        var w = ByteWriter(capacity: 26)
        w.u8(0) // initiator filter policy: use the peer address below
        w.u8(ownAddressType)
        w.u8(peer.kind.rawValue)
        w.append(peer.littleEndianBytes)
        w.u8(0x01) // initiating PHYs: LE 1M
        w.u16(scanInterval)
        w.u16(scanWindow)
        appendConnectionParameters(p, to: &w)
        return HCICommand(.leExtendedCreateConnection, w.bytes)
    }
}
