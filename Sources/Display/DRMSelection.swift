import DisplaySettings
import Graphics

/// A display mode offered by a connector (the fields that matter for choosing).
public struct DRMMode: Equatable {
    public var width: Int
    public var height: Int
    /// Vertical refresh in Hz.
    public var refresh: Int
    /// The kernel marks the panel's native mode as preferred.
    public var preferred: Bool
    /// Position in the connector's mode list (to pick the raw drmModeModeInfo).
    public var index: Int

    public init(width: Int, height: Int, refresh: Int, preferred: Bool = false, index: Int = 0) {
        self.width = width; self.height = height; self.refresh = refresh; self.preferred = preferred; self.index = index
    }
}

public enum DRMConnection: Equatable {
    case connected, disconnected, unknown
}

public struct DRMConnectorInfo: Equatable {
    public var id: UInt32
    /// DRM_MODE_CONNECTOR_* value.
    public var type: UInt32
    /// 1-based number among connectors of the same type.
    public var typeIndex: UInt32
    public var connection: DRMConnection
    public var modes: [DRMMode]
    public var encoderIDs: [UInt32]
    /// Encoder currently driving it (0 if none).
    public var currentEncoderID: UInt32

    public init(id: UInt32, type: UInt32, typeIndex: UInt32, connection: DRMConnection, modes: [DRMMode],
                encoderIDs: [UInt32], currentEncoderID: UInt32 = 0) {
        self.id = id; self.type = type; self.typeIndex = typeIndex; self.connection = connection
        self.modes = modes; self.encoderIDs = encoderIDs; self.currentEncoderID = currentEncoderID
    }

    /// The kernel's name, e.g. "HDMI-A-1", "DSI-1", "Virtual-1".
    public var name: String { "\(DRMConnectorInfo.typeName(type))-\(typeIndex)" }

    static func typeName(_ t: UInt32) -> String {
        let names = ["Unknown", "VGA", "DVI-I", "DVI-D", "DVI-A", "Composite", "SVIDEO", "LVDS", "Component",
                     "DIN", "DP", "HDMI-A", "HDMI-B", "TV", "eDP", "Virtual", "DSI", "DPI", "Writeback", "SPI", "USB"]
        return Int(t) < names.count ? names[Int(t)] : "Type\(t)"
    }

    static let writeback: UInt32 = 18
}

public struct DRMEncoderInfo: Equatable {
    public var id: UInt32
    /// CRTC currently bound (0 if none).
    public var crtcID: UInt32
    /// Bit i set: may drive the i-th CRTC of the resource list.
    public var possibleCRTCs: UInt32

    public init(id: UInt32, crtcID: UInt32, possibleCRTCs: UInt32) {
        self.id = id; self.crtcID = crtcID; self.possibleCRTCs = possibleCRTCs
    }
}

/// What drmModeGetResources and friends reported, as plain values.
public struct DRMResources: Equatable {
    public var crtcIDs: [UInt32]
    public var connectors: [DRMConnectorInfo]
    public var encoders: [DRMEncoderInfo]

    public init(crtcIDs: [UInt32], connectors: [DRMConnectorInfo], encoders: [DRMEncoderInfo]) {
        self.crtcIDs = crtcIDs; self.connectors = connectors; self.encoders = encoders
    }
}

public struct DRMSelection: Equatable {
    public var connectorID: UInt32
    public var connectorName: String
    public var mode: DRMMode
    public var crtcID: UInt32
    public var encoderID: UInt32
}

public enum DRMSelectionError: Error, Equatable, CustomStringConvertible {
    case noConnectedDisplay
    case connectorNotFound(String, available: [String])
    case connectorNotConnected(String)
    case modeNotFound(String, available: [String])
    case noCRTC(String)

    public var description: String {
        switch self {
        case .noConnectedDisplay: return "no connected display"
        case .connectorNotFound(let n, let a): return "connector \(n) not found (have: \(a.joined(separator: ", ")))"
        case .connectorNotConnected(let n): return "connector \(n) has no display connected"
        case .modeNotFound(let m, let a): return "mode \(m) not offered (have: \(a.joined(separator: ", ")))"
        case .noCRTC(let n): return "no free CRTC can drive \(n)"
        }
    }
}

/// Chooses connector, mode and CRTC. Pure, so it is tested on resource
/// lists recorded from real cards.
///
/// - Connector: the configured one, else a connected one with modes,
///   preferring one already lit (what the boot console used), else the
///   first in the kernel's order. Writeback connectors are never displays.
/// - Mode: the configured size (highest refresh unless given), else the
///   mode the kernel marks preferred, else the first listed.
/// - CRTC: the one the connector's current encoder drives, else the first
///   CRTC a compatible encoder can drive.
public func selectDRMOutput(_ res: DRMResources, _ prefs: DRMPreferences = DRMPreferences()) throws(DRMSelectionError) -> DRMSelection {
    let connector: DRMConnectorInfo
    if let wanted = prefs.connector {
        guard let c = res.connectors.first(where: { $0.name.lowercased() == wanted.lowercased() }) else {
            throw .connectorNotFound(wanted, available: res.connectors.map { $0.name })
        }
        guard c.connection != .disconnected, !c.modes.isEmpty else { throw .connectorNotConnected(c.name) }
        connector = c
    } else {
        let usable = res.connectors.filter {
            $0.connection == .connected && !$0.modes.isEmpty && $0.type != DRMConnectorInfo.writeback
        }
        let lit = usable.first { c in
            c.currentEncoderID != 0 && res.encoders.contains { $0.id == c.currentEncoderID && $0.crtcID != 0 }
        }
        guard let c = lit ?? usable.first else { throw .noConnectedDisplay }
        connector = c
    }

    let mode: DRMMode
    if let w = prefs.width, let h = prefs.height {
        let sized = connector.modes.filter { $0.width == w && $0.height == h && (prefs.refresh == nil || $0.refresh == prefs.refresh) }
        guard let best = sized.max(by: { $0.refresh < $1.refresh }) else {
            let wanted = prefs.refresh.map { "\(w)x\(h)@\($0)" } ?? "\(w)x\(h)"
            throw .modeNotFound(wanted, available: connector.modes.map { "\($0.width)x\($0.height)@\($0.refresh)" })
        }
        mode = best
    } else {
        mode = connector.modes.first { $0.preferred } ?? connector.modes[0]
    }

    if connector.currentEncoderID != 0, connector.encoderIDs.contains(connector.currentEncoderID),
       let enc = res.encoders.first(where: { $0.id == connector.currentEncoderID }), enc.crtcID != 0,
       res.crtcIDs.contains(enc.crtcID) {
        return DRMSelection(connectorID: connector.id, connectorName: connector.name, mode: mode, crtcID: enc.crtcID, encoderID: enc.id)
    }
    for encID in connector.encoderIDs {
        guard let enc = res.encoders.first(where: { $0.id == encID }) else { continue }
        for (i, crtc) in res.crtcIDs.enumerated() where i < 32 && enc.possibleCRTCs & (1 << UInt32(i)) != 0 {
            return DRMSelection(connectorID: connector.id, connectorName: connector.name, mode: mode, crtcID: crtc, encoderID: enc.id)
        }
    }
    throw .noCRTC(connector.name)
}
