import Foundation

/// Runs the host build of `headunit` and captures its output.
struct HeadUnitRun {
    var status: Int32
    var stdout: String
    var stderr: String

    static func run(_ arguments: [String], timeout: TimeInterval = 60) throws -> HeadUnitRun {
        let process = Process()
        guard FileManager.default.isExecutableFile(atPath: Paths.headunit.path) else {
            throw TestFailure("no headunit binary at \(Paths.headunit.path): run swift build first")
        }
        process.executableURL = Paths.headunit
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let outReader = LineReader(out.fileHandleForReading)
        let errReader = LineReader(err.fileHandleForReading)
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw TestFailure("headunit \(arguments.joined(separator: " ")) did not finish within \(timeout) s:\n\(errReader.all.joined(separator: "\n"))")
        }
        process.waitUntilExit()
        _ = outReader.next(timeout: 2) { _ in false }
        _ = errReader.next(timeout: 0.5) { _ in false }
        return HeadUnitRun(status: process.terminationStatus, stdout: outReader.all.joined(separator: "\n"),
                           stderr: errReader.all.joined(separator: "\n"))
    }
}

/// tshark (Debian package tshark) reading a btsnoop file.
enum TShark {
    static func decode(_ file: URL, verbose: Bool = false) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tshark")
        process.arguments = ["-r", file.path] + (verbose ? ["-V"] : [])
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
