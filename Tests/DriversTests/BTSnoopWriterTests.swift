import BluetoothCore
import CLinux
import Foundation
import HCI
import Testing
@testable import Drivers

/// The btsnoop trace on disk: its owner's alone, keys zeroed unless asked
/// for, and still what Wireshark decodes.
@Suite(.serialized) struct BTSnoopWriterTests {
    let ltk: [UInt8] = Array(0xA0...0xAF)
    let link = ConnectionHandle(0x0040)

    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("btsnoop-\(getpid())-\(name)").path
    }

    func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? NSNumber)?.intValue ?? -1
    }

    /// An LE Long Term Key Request Reply and an SMP Encryption Information
    /// with the same key, as the head unit sends and receives them.
    func writeKeys(to writer: BTSnoopWriter) {
        writer.record(HCICommand.leLongTermKeyRequestReply(link, ltk: ltk).packet, direction: .sent)
        let smp: [UInt8] = [0x06] + ltk
        writer.record(ACLPacket(handle: link, boundary: .firstFlushable, data: [UInt8(smp.count), 0, 0x06, 0x00] + smp).packet,
                      direction: .received)
    }

    func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.count >= needle.count && (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<$0 + needle.count]) == needle }
    }

    @Test func aTraceIsMode0600EvenOverAnOlderWorldReadableOne() throws {
        let path = temporaryPath("mode")
        defer { unlink(path) }
        FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3]), attributes: [.posixPermissions: 0o644])
        #expect(mode(path) == 0o644)
        let writer = try BTSnoopWriter(path: path, redaction: TraceRedaction())
        writer.close()
        #expect(mode(path) == 0o600)
        unlink(path)
        let fresh = try BTSnoopWriter(path: path, redaction: TraceRedaction())
        fresh.close()
        #expect(mode(path) == 0o600)
    }

    @Test func keysAreZeroedUnlessAskedForAndTSharkStillDecodesThem() throws {
        let redactedPath = temporaryPath("redacted")
        let keptPath = temporaryPath("kept")
        defer { unlink(redactedPath); unlink(keptPath) }
        let redacted = try BTSnoopWriter(path: redactedPath, redaction: TraceRedaction())
        writeKeys(to: redacted)
        redacted.close()
        let kept = try BTSnoopWriter(path: keptPath, redaction: nil)
        writeKeys(to: kept)
        kept.close()
        let redactedBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: redactedPath)))
        let keptBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: keptPath)))
        #expect(!contains(redactedBytes, ltk))
        #expect(contains(keptBytes, ltk))
        #expect(redactedBytes.count == keptBytes.count, "lengths are kept")

        // Wireshark's dissectors find both keys, zeroed.
        let fields = try tshark(redactedPath, ["-T", "fields", "-e", "bthci_cmd.le_long_term_key", "-e", "btsmp.long_term_key"])
        let zero = String(repeating: "0", count: 32)
        #expect(fields.split(separator: "\n").filter { $0.contains(zero) }.count == 2, "tshark: \(fields)")
        #expect(!fields.contains("a0a1a2a3"), "tshark: \(fields)")
        let keptFields = try tshark(keptPath, ["-T", "fields", "-e", "bthci_cmd.le_long_term_key", "-e", "btsmp.long_term_key"])
        #expect(keptFields.contains("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"), "tshark: \(keptFields)")
        #expect(!(try tshark(redactedPath, ["-V"])).lowercased().contains("malformed"))
    }

    func tshark(_ path: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tshark")
        process.arguments = ["-r", path] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
