import Foundation
import Testing
@testable import App
import Platform

/// kill -9 while the state files are written: the firmware binary
/// (`headunit state-stress`, the firmware's own stores) rewrites every kind
/// of state file (bond, remembered server, app names, our IRK, our client
/// name) and removes some, and is killed with SIGKILL at random moments,
/// 1,000 times. Each restart reports what the firmware's loaders find; it
/// must be the last write that completed or the one under way, never a
/// damaged file, never an older one, never nothing.
@Suite struct PowerCutTests {
    static let iterations = Int(ProcessInfo.processInfo.environment["POWER_CUT_ITERATIONS"] ?? "") ?? 1000

    /// What a kind of file may hold after the kill: the last completed write,
    /// or the one under way. nil: no file.
    struct Expectation {
        var committed: String?
        var inFlight: String??

        func allows(_ found: String?) -> Bool {
            found == committed || (inFlight.map { $0 == found } ?? false)
        }
    }

    @Test func everyRestartAfterKill9LoadsTheLastGoodState() throws {
        let dir = Paths.temporaryDirectory("powercut").appendingPathComponent("state")
        var expected: [String: Expectation] = [:]
        for kind in StateStress.kinds { expected[kind] = Expectation(committed: nil, inFlight: nil) }
        var killedMidWrite = 0
        var writesCompleted = 0
        var perKind: [String: Int] = [:]
        var cutPerKind: [String: Int] = [:]
        let started = Date()
        for iteration in 0..<Self.iterations {
            let process = Process()
            process.executableURL = Paths.headunit
            process.arguments = ["state-stress", dir.path]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            let reader = out.fileHandleForReading

            // The restart: what the firmware's loaders found.
            var buffer = Data()
            while !buffer.contains(0x0A) {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
            }
            let firstLine = String(decoding: buffer.prefix { $0 != 0x0A }, as: UTF8.self)
            let loaded = try #require(Self.parseLoaded(firstLine), "iteration \(iteration): no report, got '\(firstLine)'")
            for kind in StateStress.kinds {
                let found = loaded[kind] ?? nil
                let expectation = expected[kind]!
                #expect(found != "bad", "iteration \(iteration): \(kind) file damaged")
                #expect(expectation.allows(found),
                        "iteration \(iteration): \(kind) loaded \(found ?? "nothing"), expected \(expectation.committed ?? "nothing") or the write under way \(String(describing: expectation.inFlight))")
                expected[kind] = Expectation(committed: found, inFlight: nil)
            }

            // Up to about five rounds of writes, then the plug is pulled.
            usleep(UInt32.random(in: 0...(iteration % 10 == 0 ? 60_000 : 25_000)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            buffer.append(reader.readDataToEndOfFile())

            // What it announced: each `ok` is a completed step; a last
            // `begin` without its `ok` was cut.
            var cut: String?
            for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n").dropFirst() {
                let words = line.split(separator: " ").map(String.init)
                guard words.count == 3, var e = expected[words[1]] else { continue }
                let value: String? = words[2] == "none" ? nil : words[2]
                if words[0] == "begin" {
                    e.inFlight = .some(value)
                    cut = words[1]
                } else if words[0] == "ok" {
                    e = Expectation(committed: value, inFlight: nil)
                    writesCompleted += 1
                    perKind[words[1], default: 0] += 1
                    cut = nil
                }
                expected[words[1]] = e
            }
            if let cut {
                killedMidWrite += 1
                cutPerKind[cut, default: 0] += 1
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print("power cuts: \(Self.iterations) kills in \(String(format: "%.1f", seconds)) s, \(killedMidWrite) in the middle of a write \(cutPerKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }), \(writesCompleted) writes completed")
        // The kills must land inside writes, and every kind must be written.
        #expect(killedMidWrite >= Self.iterations / 2)
        for kind in StateStress.kinds { #expect((perKind[kind] ?? 0) > 0, "\(kind) never written") }
        // The same state read by the test itself, with the firmware's loaders.
        let files = StateFiles(directory: dir.path)
        #expect(BondStore(files: files).all().allSatisfy { $0.server == StateStress.server })
        #expect(files.list().allSatisfy { name in
            name.hasPrefix(BondStore.prefix) || [PairingStore.serverFile, PairingStore.clientNameFile,
                                                  BondStore.localIRKFile, AppNameStore.file, HeadUnit.notifBridgeKeyFile].contains(name)
        })
        // Readable by the owner only, each of them.
        for name in files.list() {
            let mode = try FileManager.default.attributesOfItem(atPath: files.path(name))[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "\(name)")
        }
    }

    /// `loaded bond=3 server=none ...` → kind: value (nil for none).
    static func parseLoaded(_ line: String) -> [String: String?]? {
        let words = line.split(separator: " ")
        guard words.first == "loaded" else { return nil }
        var out: [String: String?] = [:]
        for word in words.dropFirst() {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            out.updateValue(parts[1] == "none" ? nil : parts[1], forKey: parts[0])
        }
        return StateStress.kinds.allSatisfy { out.keys.contains($0) } ? out : nil
    }
}
