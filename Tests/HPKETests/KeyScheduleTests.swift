@testable import HPKE
import Testing

/// The HPKE base-mode key schedule and secret export against RFC 9180
/// Appendix A (Vectors/rfc9180-key-schedule.txt): the same code as the
/// NotifBridge suite, run with the suite identifiers of the published vectors.
struct KeyScheduleTests {
    @Test func keyScheduleMatchesRFC9180() throws {
        let file = try RFC9180File()
        #expect(file.suites.count == 2)
        for suite in file.suites {
            let hpke = HPKESuite(kem: suite.kem, kdf: suite.kdf, aead: suite.aead, keyCount: suite.key.count, nonceCount: 12)
            let schedule = HPKEKeySchedule(suite: hpke, sharedSecret: suite.sharedSecret, info: suite.info)
            #expect(hexString(schedule.keyScheduleContext) == hexString(suite.keyScheduleContext))
            #expect(hexString(schedule.key) == hexString(suite.key))
            #expect(hexString(schedule.baseNonce) == hexString(suite.baseNonce))
            #expect(hexString(schedule.exporterSecret) == hexString(suite.exporterSecret))

            let exporter = HPKEExporter(suite: hpke, sharedSecret: suite.sharedSecret, info: suite.info)
            #expect(hexString(exporter.exporterSecret) == hexString(suite.exporterSecret))
            #expect(suite.exports.count == 3)
            for (context, length, value) in suite.exports {
                #expect(hexString(exporter.export(context: context, length: length)) == hexString(value))
            }
        }
    }

    @Test func restoredExporterExportsTheSame() {
        let exporter = HPKEExporter(sharedSecret: [UInt8](repeating: 0x42, count: 32), info: Array("XWing-Version1-abc".utf8))
        let restored = HPKEExporter(exporterSecret: exporter.exporterSecret)
        let context = Array("XWing-Version1-abc-HostToAccessory-1234".utf8)
        #expect(restored.export(context: context, length: 32) == exporter.export(context: context, length: 32))
        #expect(exporter.export(context: context, length: 32) != exporter.export(context: context + [0x30], length: 32))
    }

    @Test func notifBridgeSuiteIdentifier() {
        #expect(HPKESuite.notifBridge.identifier == Array("HPKE".utf8) + [0x64, 0x7A, 0x00, 0x01, 0x00, 0x02])
    }
}

/// Vectors/rfc9180-key-schedule.txt read in order: a suite's fields, then
/// its exporter_context / L / exported_value triples.
private struct RFC9180File {
    struct Suite {
        var kem: UInt16 = 0, kdf: UInt16 = 0, aead: UInt16 = 0
        var sharedSecret: [UInt8] = [], info: [UInt8] = [], keyScheduleContext: [UInt8] = []
        var key: [UInt8] = [], baseNonce: [UInt8] = [], exporterSecret: [UInt8] = []
        var exports: [(context: [UInt8], length: Int, value: [UInt8])] = []
    }
    var suites: [Suite] = []

    init() throws {
        let text = try VectorFile.text("rfc9180-key-schedule.txt")
        var pendingContext: [UInt8] = []
        var pendingLength = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            switch name {
            case "kem_id": suites.append(Suite()); suites[suites.count - 1].kem = UInt16(value)!
            case "kdf_id": suites[suites.count - 1].kdf = UInt16(value)!
            case "aead_id": suites[suites.count - 1].aead = UInt16(value)!
            case "shared_secret": suites[suites.count - 1].sharedSecret = hexBytes(value)
            case "info": suites[suites.count - 1].info = hexBytes(value)
            case "key_schedule_context": suites[suites.count - 1].keyScheduleContext = hexBytes(value)
            case "key": suites[suites.count - 1].key = hexBytes(value)
            case "base_nonce": suites[suites.count - 1].baseNonce = hexBytes(value)
            case "exporter_secret": suites[suites.count - 1].exporterSecret = hexBytes(value)
            case "exporter_context": pendingContext = hexBytes(value)
            case "L": pendingLength = Int(value)!
            case "exported_value": suites[suites.count - 1].exports.append((pendingContext, pendingLength, hexBytes(value)))
            default: break
            }
        }
    }
}
