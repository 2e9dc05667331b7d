import Foundation

/// Where the integration tests find the project's pieces.
enum Paths {
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// The host build of the firmware, built by `swift build` before the tests.
    static var headunit: URL {
        if let explicit = ProcessInfo.processInfo.environment["HEADUNIT_BIN"] { return URL(fileURLWithPath: explicit) }
        return packageRoot.appendingPathComponent(".build/debug/headunit")
    }

    static var python: URL { packageRoot.appendingPathComponent(".venv/bin/python") }
    static var phoneDirectory: URL { packageRoot.appendingPathComponent("Tests/Phone") }

    static func temporaryDirectory(_ name: String) -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("headunit-tests-\(name)-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ text: String) { description = text }
}
