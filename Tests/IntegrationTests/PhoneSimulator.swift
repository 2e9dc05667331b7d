import Foundation

/// The simulated iPhone (Tests/Phone, Bumble) as a child process: its
/// controller for the head unit is reachable at `tcp:127.0.0.1:hciPort`,
/// and it is scripted with JSON lines on stdin; it reports JSON lines on stdout.
final class PhoneSimulator {
    let process = Process()
    let events: LineReader
    private let input: FileHandle
    let hciPort: Int
    private var nextID = 1
    let logURL: URL

    init(arguments: [String] = [], name: String = "phone") throws {
        guard FileManager.default.isExecutableFile(atPath: Paths.python.path) else {
            throw TestFailure("no Python venv at \(Paths.python.path): run scripts/setup first")
        }
        process.executableURL = Paths.python
        process.arguments = ["-m", "phone", "--hci-port", "0", "--exit-on-eof"] + arguments
        process.currentDirectoryURL = Paths.phoneDirectory
        let stdout = Pipe()
        let stdin = Pipe()
        logURL = Paths.temporaryDirectory(name).appendingPathComponent("phone.log")
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process.standardOutput = stdout
        process.standardInput = stdin
        process.standardError = try FileHandle(forWritingTo: logURL)
        events = LineReader(stdout.fileHandleForReading)
        input = stdin.fileHandleForWriting
        try process.run()
        guard let ready = events.next(timeout: 30, where: { $0.contains("\"ready\"") }),
              let object = PhoneSimulator.parse(ready), let port = object["hci_port"] as? Int else {
            process.terminate()
            throw TestFailure("phone simulator did not start; log at \(logURL.path)")
        }
        hciPort = port
    }

    var hciSpec: String { "tcp:127.0.0.1:\(hciPort)" }

    static func parse(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    /// Sends a command and waits for its reply event (matched by id).
    @discardableResult
    func command(_ name: String, _ fields: [String: Any] = [:], timeout: TimeInterval = 10) throws -> [String: Any] {
        let id = nextID
        nextID += 1
        var object = fields
        object["cmd"] = name
        object["id"] = id
        let data = try JSONSerialization.data(withJSONObject: object)
        input.write(data + Data([0x0A]))
        let reply = events.find(timeout: timeout) { line in
            guard line.contains("\(id)"), let o = PhoneSimulator.parse(line) else { return false }
            return (o["event"] as? String == "reply" || o["event"] as? String == "error") && o["id"] as? Int == id
        }.flatMap(PhoneSimulator.parse)
        guard let reply else {
            throw TestFailure("phone did not answer \(name)")
        }
        return reply
    }

    /// Waits for an event with this name (and matching fields).
    func waitFor(_ event: String, timeout: TimeInterval = 20, matching: ([String: Any]) -> Bool = { _ in true }) -> [String: Any]? {
        let line = events.next(timeout: timeout) { line in
            guard let o = PhoneSimulator.parse(line), o["event"] as? String == event else { return false }
            return matching(o)
        }
        return line.flatMap(PhoneSimulator.parse)
    }

    func stop() {
        if process.isRunning {
            input.write(Data("{\"cmd\": \"quit\", \"id\": 0}\n".utf8))
            let deadline = Date().addingTimeInterval(3)
            while process.isRunning && Date() < deadline { usleep(50_000) }
            if process.isRunning { process.terminate() }
        }
        process.waitUntilExit()
    }

    deinit { if process.isRunning { process.terminate() } }
}
