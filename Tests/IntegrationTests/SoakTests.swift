import Foundation
import Testing

/// A long drive, fast: the simulated iPhone plays Google Maps turn-by-turn,
/// notifications of 300 other apps (to be dropped) and track changes, while
/// the head unit draws every frame (PNG output) and its resident memory,
/// open descriptors and cache sizes are sampled. After a warm-up, memory
/// may grow by at most 1 MB, descriptors not at all, and every cache stays
/// within its bound.
///
/// CI runs 1,000 notifications and 100 track changes; `scripts/soak` runs
/// 10,000 and 1,000 (SOAK_NOTIFICATIONS, SOAK_TRACKS).
@Suite(.serialized) struct SoakTests {
    static let environment = ProcessInfo.processInfo.environment
    static let notifications = Int(environment["SOAK_NOTIFICATIONS"] ?? "") ?? 1000
    static let tracks = Int(environment["SOAK_TRACKS"] ?? "") ?? notifications / 10
    static let chunks = 10

    struct Sample: CustomStringConvertible {
        var notifications: Int
        var rssKB: Int
        /// Open descriptors other than font files.
        var fds: Int
        /// Font files open, and how many distinct files they are.
        var fontFds: Int
        var fontFiles: Int
        var caches: String

        var description: String {
            "\(notifications) notifications: VmRSS \(rssKB) kB, \(fds) fds and \(fontFds) fonts, \(caches)"
        }
    }

    static func sample(_ unit: RunningHeadUnit, after notifications: Int) throws -> Sample {
        let pid = unit.process.processIdentifier
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        // A figure that cannot be read fails the test: a stand-in number
        // would compare equal to itself and measure nothing.
        guard let rss = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
            .flatMap({ Int($0.split(separator: " ").dropFirst().first ?? "") }) else {
            throw TestFailure("no VmRSS in /proc/\(pid)/status")
        }
        // A frame or state file being written holds a descriptor for a
        // moment (longer on a loaded machine): the fewest of ten looks over
        // a second is what stays open. A script font is open while
        // something on screen is drawn with it (docs/FONTS.md), so fonts are
        // counted apart: they come and go with the screen, but one file is
        // never open twice.
        var fds = Int.max, fontFds = 0, fontFiles = 0
        for _ in 0..<10 {
            let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
            let fonts = names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
                .filter { $0.hasSuffix(".ttf") || $0.hasSuffix(".ttc") || $0.hasSuffix(".otf") }
            if names.count - fonts.count < fds {
                fds = names.count - fonts.count
                fontFds = fonts.count
                fontFiles = Set(fonts).count
            }
            usleep(100_000)
        }
        unit.type("status")
        let caches = unit.console.next(timeout: 5) { $0.hasPrefix("caches:") } ?? "caches: ?"
        return Sample(notifications: notifications, rssKB: rss, fds: fds, fontFds: fontFds, fontFiles: fontFiles,
                      caches: String(caches.dropFirst("caches: ".count)))
    }

    /// `name N/M` pairs of a caches line, e.g. "app names 3/128" → ("app names", 3, 128).
    static func bounded(_ caches: String) -> [(name: String, count: Int, bound: Int)] {
        caches.split(separator: ",").compactMap { part in
            let words = part.trimmingCharacters(in: .whitespaces).split(separator: " ")
            guard let figure = words.last(where: { $0.contains("/") }) else { return nil }
            let numbers = figure.split(separator: "/").compactMap { Int($0) }
            guard numbers.count == 2 else { return nil }
            return (words.prefix { !$0.contains("/") }.joined(separator: " "), numbers[0], numbers[1])
        }
    }

    @Test func longDriveKeepsMemoryDescriptorsAndCachesFlat() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let frames = Paths.temporaryDirectory("soak-frames")
        let unit = try RunningHeadUnit(hci: phone.hciSpec, extra: ["--display", "png:\(frames.path)"], name: "soak")
        defer { unit.stop() }
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        #expect(phone.waitFor("ancs_session", timeout: 30) { $0["state"] as? String == "started" } != nil)
        let started = Date()

        // Warm-up: every screen, glyph and table the drive needs gets made once.
        let warmUp = max(100, Self.notifications / 10)
        let first = try phone.command("soak", ["phone": "anna", "notifications": warmUp, "tracks": max(10, warmUp / 10)],
                                      timeout: 600)
        #expect(first["unanswered"] as? Int == 0, "\(first)")
        Thread.sleep(forTimeInterval: 0.5)
        let baseline = try Self.sample(unit, after: 0)
        var samples = [baseline]
        var done = 0, tracks = 0, unanswered = 0
        for chunk in 0..<Self.chunks {
            let count = Self.notifications / Self.chunks
            let trackCount = Self.tracks / Self.chunks
            let reply = try phone.command("soak", ["phone": "anna", "notifications": count, "tracks": trackCount,
                                                   "report_every": 100_000], timeout: 1200)
            done += reply["notifications"] as? Int ?? 0
            tracks += reply["tracks"] as? Int ?? 0
            unanswered += reply["unanswered"] as? Int ?? 0
            Thread.sleep(forTimeInterval: chunk == Self.chunks - 1 ? 1.0 : 0.2)
            samples.append(try Self.sample(unit, after: done))
        }
        let seconds = Date().timeIntervalSince(started)
        let peak = samples.map(\.rssKB).max() ?? 0
        let last = samples.last!
        let frameCount = unit.allEvents.filter { $0["event"] as? String == "frame" }.count
        print("soak: \(done) notifications, \(tracks) track changes after a warm-up of \(warmUp), \(frameCount) frames, in \(String(format: "%.0f", seconds)) s")
        print("soak: VmRSS \(baseline.rssKB) kB after warm-up, peak \(peak) kB (+\(peak - baseline.rssKB) kB), end \(last.rssKB) kB (\(last.rssKB - baseline.rssKB >= 0 ? "+" : "")\(last.rssKB - baseline.rssKB) kB); fds \(baseline.fds) -> \(last.fds)")
        for s in samples { print("soak:   \(s)") }

        #expect(done == Self.notifications && tracks == Self.tracks)
        #expect(unanswered == 0, "the head unit did not ask about \(unanswered) notifications")
        #expect(peak - baseline.rssKB <= 1024, "resident memory grew by \(peak - baseline.rssKB) kB after the warm-up")
        #expect(samples.allSatisfy { $0.fds == baseline.fds }, "open descriptors changed: \(samples.map(\.fds))")
        #expect(samples.allSatisfy { $0.fontFds == $0.fontFiles }, "a font file open twice: \(samples)")
        for s in samples {
            let figures = Self.bounded(s.caches)
            #expect(figures.count >= 3, "no cache figures in '\(s.caches)'")
            for f in figures { #expect(f.count <= f.bound, "\(f.name) \(f.count) over its bound \(f.bound)") }
        }
        // The drive itself was shown: Maps instructions appeared and went.
        let shown = unit.allEvents.filter { $0["event"] as? String == "notification" && $0["action"] as? String == "shown" }
        #expect(shown.count >= done / 2)
        #expect(unit.process.isRunning)
    }
}
