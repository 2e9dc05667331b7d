import CLinux
import Foundation
import Testing
@testable import Platform

/// The event log file: it carries the text of the notifications shown, so
/// it is its owner's alone, as the state files and traces are.
@Suite struct LineFileTests {
    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("linefile-\(getpid())-\(name)").path
    }

    func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? NSNumber)?.intValue ?? -1
    }

    @Test func anEventLogIsMode0600EvenOverAnOlderWorldReadableOne() throws {
        let path = temporaryPath("events")
        defer { unlink(path) }
        FileManager.default.createFile(atPath: path, contents: Data("old\n".utf8), attributes: [.posixPermissions: 0o644])
        do {
            let file = try LineFile(path: path)
            file.write("{\"event\":\"notification\"}")
        }
        #expect(mode(path) == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"event\":\"notification\"}\n")
        unlink(path)
        do { _ = try LineFile(path: path) }
        #expect(mode(path) == 0o600)
    }
}
