import Testing
@testable import Display
import Graphics
import DisplaySettings

/// Resource lists in the form `modetest -c -e -p` reports them, for the
/// machines the head unit runs on.
enum RecordedResources {
    // DRM_MODE_CONNECTOR_* values.
    static let hdmiA: UInt32 = 11, dsi: UInt32 = 16, virtual: UInt32 = 15, writeback: UInt32 = 18, composite: UInt32 = 5

    /// Raspberry Pi 4, vc4-kms-v3d: two HDMI ports (a TV on the first), the
    /// composite output and the writeback connector; five CRTCs.
    static func pi4(hdmiConnected: Bool = true, dsiLit: Bool = false) -> DRMResources {
        var connectors = [
            DRMConnectorInfo(id: 32, type: hdmiA, typeIndex: 1, connection: hdmiConnected ? .connected : .disconnected,
                             modes: hdmiConnected ? [
                                DRMMode(width: 1920, height: 1080, refresh: 60, preferred: true, index: 0),
                                DRMMode(width: 1920, height: 1080, refresh: 50, index: 1),
                                DRMMode(width: 1280, height: 720, refresh: 50, index: 2),
                                DRMMode(width: 1280, height: 720, refresh: 60, index: 3),
                                DRMMode(width: 800, height: 600, refresh: 60, index: 4),
                             ] : [],
                             encoderIDs: [31]),
            DRMConnectorInfo(id: 42, type: hdmiA, typeIndex: 2, connection: .disconnected, modes: [], encoderIDs: [41]),
            DRMConnectorInfo(id: 50, type: composite, typeIndex: 1, connection: .disconnected, modes: [], encoderIDs: [49]),
            DRMConnectorInfo(id: 52, type: writeback, typeIndex: 1, connection: .unknown,
                             modes: [DRMMode(width: 1920, height: 1080, refresh: 60, index: 0)], encoderIDs: [51]),
        ]
        var encoders = [
            DRMEncoderInfo(id: 31, crtcID: 0, possibleCRTCs: 0b00100),
            DRMEncoderInfo(id: 41, crtcID: 0, possibleCRTCs: 0b01000),
            DRMEncoderInfo(id: 49, crtcID: 0, possibleCRTCs: 0b00010),
            DRMEncoderInfo(id: 51, crtcID: 0, possibleCRTCs: 0b00111),
        ]
        if dsiLit {
            // The official 7" touchscreen, lit by the boot console.
            connectors.insert(DRMConnectorInfo(id: 61, type: dsi, typeIndex: 1, connection: .connected,
                                               modes: [DRMMode(width: 800, height: 480, refresh: 60, preferred: true, index: 0)],
                                               encoderIDs: [60], currentEncoderID: 60), at: 2)
            encoders.append(DRMEncoderInfo(id: 60, crtcID: 83, possibleCRTCs: 0b00001))
        }
        return DRMResources(crtcIDs: [83, 92, 101, 110, 119], connectors: connectors, encoders: encoders)
    }

    /// QEMU virtio-gpu: one virtual output whose preferred mode is not first.
    static func virtio() -> DRMResources {
        DRMResources(crtcIDs: [35], connectors: [
            DRMConnectorInfo(id: 36, type: virtual, typeIndex: 1, connection: .connected, modes: [
                DRMMode(width: 5120, height: 2160, refresh: 50, index: 0),
                DRMMode(width: 1920, height: 1080, refresh: 60, index: 1),
                DRMMode(width: 1280, height: 800, refresh: 75, preferred: true, index: 2),
                DRMMode(width: 1024, height: 768, refresh: 60, index: 3),
            ], encoderIDs: [37], currentEncoderID: 37),
        ], encoders: [DRMEncoderInfo(id: 37, crtcID: 35, possibleCRTCs: 1)])
    }
}

@Suite struct DRMSelectionTests {
    @Test func picksTheConnectedHDMIAndItsPreferredMode() throws {
        let s = try selectDRMOutput(RecordedResources.pi4())
        #expect(s.connectorName == "HDMI-A-1" && s.connectorID == 32)
        #expect(s.mode == DRMMode(width: 1920, height: 1080, refresh: 60, preferred: true, index: 0))
        #expect(s.encoderID == 31 && s.crtcID == 101)  // bit 2 of the CRTC list
    }

    @Test func prefersTheDisplayTheBootConsoleLit() throws {
        let s = try selectDRMOutput(RecordedResources.pi4(dsiLit: true))
        #expect(s.connectorName == "DSI-1")
        #expect(s.mode.width == 800 && s.mode.height == 480)
        #expect(s.crtcID == 83)  // kept on the CRTC already driving it
    }

    @Test func honoursConfiguredConnectorAndMode() throws {
        let prefs = DRMPreferences(connector: "hdmi-a-1", width: 1280, height: 720)
        let s = try selectDRMOutput(RecordedResources.pi4(dsiLit: true), prefs)
        #expect(s.connectorName == "HDMI-A-1")
        #expect(s.mode.index == 3 && s.mode.refresh == 60)  // the highest refresh of that size
        let fifty = try selectDRMOutput(RecordedResources.pi4(), DRMPreferences(width: 1280, height: 720, refresh: 50))
        #expect(fifty.mode.index == 2)
    }

    @Test func usesThePreferredModeEvenWhenNotFirst() throws {
        let s = try selectDRMOutput(RecordedResources.virtio())
        #expect(s.connectorName == "Virtual-1" && s.mode.width == 1280 && s.mode.height == 800 && s.crtcID == 35)
    }

    @Test func clearErrors() {
        #expect(throws: DRMSelectionError.noConnectedDisplay) { try selectDRMOutput(RecordedResources.pi4(hdmiConnected: false)) }
        #expect(throws: DRMSelectionError.connectorNotFound("DP-1", available: ["HDMI-A-1", "HDMI-A-2", "Composite-1", "Writeback-1"])) {
            try selectDRMOutput(RecordedResources.pi4(), DRMPreferences(connector: "DP-1"))
        }
        #expect(throws: DRMSelectionError.connectorNotConnected("HDMI-A-2")) {
            try selectDRMOutput(RecordedResources.pi4(), DRMPreferences(connector: "HDMI-A-2"))
        }
        do {
            _ = try selectDRMOutput(RecordedResources.pi4(), DRMPreferences(width: 1024, height: 600))
            Issue.record("expected modeNotFound")
        } catch {
            guard case .modeNotFound(let wanted, let available) = error else { Issue.record("\(error)"); return }
            #expect(wanted == "1024x600" && available.contains("1280x720@60"))
        }
        var orphan = RecordedResources.virtio()
        orphan.encoders[0] = DRMEncoderInfo(id: 37, crtcID: 0, possibleCRTCs: 0)
        #expect(throws: DRMSelectionError.noCRTC("Virtual-1")) { try selectDRMOutput(orphan) }
    }
}
