import Foundation

/// `headunit run` as a child process: console on its stdin/stdout, the
/// `--events` JSON lines followed as they are written.
final class RunningHeadUnit {
    let process = Process()
    let stateDirectory: URL
    let eventsURL: URL
    let traceURL: URL
    let console: LineReader
    let stderr: LineReader
    private let input: FileHandle
    private var eventsOffset: UInt64 = 0
    private var eventLines: [String] = []
    private var consumed = 0

    /// `launcher`: a command the firmware is started through (it must end by
    /// exec-ing its arguments, so the process is the firmware itself).
    init(hci: String, stateDirectory: URL? = nil, extra: [String] = [], name: String = "run", launcher: [String] = []) throws {
        guard FileManager.default.isExecutableFile(atPath: Paths.headunit.path) else {
            throw TestFailure("no headunit binary at \(Paths.headunit.path): run swift build first")
        }
        let dir = Paths.temporaryDirectory(name)
        self.stateDirectory = stateDirectory ?? dir.appendingPathComponent("state")
        eventsURL = dir.appendingPathComponent("events.jsonl")
        traceURL = dir.appendingPathComponent("trace.btsnoop")
        process.executableURL = Paths.headunit
        process.arguments = ["run", "--hci", hci, "--state", self.stateDirectory.path, "--events", eventsURL.path,
                             "--trace", traceURL.path, "--console", "-"] + extra
        if let first = launcher.first {
            process.arguments = launcher.dropFirst() + [Paths.headunit.path] + (process.arguments ?? [])
            process.executableURL = URL(fileURLWithPath: first)
        }
        let out = Pipe(), err = Pipe(), inp = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inp
        console = LineReader(out.fileHandleForReading)
        stderr = LineReader(err.fileHandleForReading)
        input = inp.fileHandleForWriting
        try process.run()
    }

    func type(_ line: String) {
        input.write(Data((line + "\n").utf8))
    }

    private func readNewEvents() {
        guard let handle = try? FileHandle(forReadingFrom: eventsURL) else { return }
        defer { try? handle.close() }
        try? handle.seek(toOffset: eventsOffset)
        let data = handle.readDataToEndOfFile()
        guard let lastNewline = data.lastIndex(of: 0x0A) else { return }
        let complete = data[data.startIndex...lastNewline]
        eventsOffset += UInt64(complete.count)
        for line in complete.split(separator: 0x0A) { eventLines.append(String(decoding: line, as: UTF8.self)) }
    }

    /// Waits for the next event named `name` whose fields satisfy `matching`.
    @discardableResult
    func waitFor(_ name: String, timeout: TimeInterval = 20, matching: ([String: Any]) -> Bool = { _ in true }) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            readNewEvents()
            while consumed < eventLines.count {
                let line = eventLines[consumed]
                consumed += 1
                if let object = PhoneSimulator.parse(line), object["event"] as? String == name, matching(object) { return object }
            }
            if Date() > deadline || !process.isRunning {
                reportMissing(name, after: timeout)
                return nil
            }
            usleep(20_000)
        }
    }

    /// What a failed wait leaves in the test's output, so a failure in CI
    /// can be read without running it again.
    private func reportMissing(_ name: String, after timeout: TimeInterval) {
        let state = process.isRunning ? "running" : "exited with status \(process.terminationStatus)"
        print("headunit (\(eventsURL.deletingLastPathComponent().lastPathComponent)): no `\(name)` event within \(timeout) s; the process is \(state)")
        print("  last events:")
        for line in eventLines.suffix(12) { print("    \(line)") }
        print("  last log lines:")
        for line in stderr.all.suffix(25) { print("    \(line)") }
    }

    func waitForState(_ state: String, server: String? = nil, timeout: TimeInterval = 20) -> Bool {
        waitFor("state", timeout: timeout) { e in
            e["state"] as? String == state && (server == nil || e["server"] as? String == server)
        } != nil
    }

    var allEvents: [[String: Any]] {
        readNewEvents()
        return eventLines.compactMap(PhoneSimulator.parse)
    }

    func stop() {
        if process.isRunning {
            process.interrupt()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { process.terminate() }
        }
        process.waitUntilExit()
    }

    deinit { if process.isRunning { process.terminate() } }
}
