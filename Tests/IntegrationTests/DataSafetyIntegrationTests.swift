import ANCS
import BluetoothCore
import Foundation
import Testing
@testable import App
import Platform
import SMP

/// A full data partition and a read-only one, made for real with a mount
/// namespace (`unshare -rm`: a 64 KiB tmpfs filled to the last byte, or a
/// read-only bind mount over the state directory), so the kernel gives the
/// firmware ENOSPC and EROFS. The firmware pairs with a new phone and learns
/// an app name, so it tries to write the remembered server, a bond and the
/// app names: each failure is a clear error on stderr, in the event log and
/// in `status`; the old files stay byte for byte; no temporary file is
/// left; the phone's notifications still reach the screen.
@Suite(.serialized) struct DataSafetyIntegrationTests {
    /// State from an earlier life: our name and IRK, app names, a bond with another phone.
    func oldState() throws -> URL {
        let dir = Paths.temporaryDirectory("old-state").appendingPathComponent("state")
        let files = StateFiles(directory: dir.path)
        try files.prepare()
        try files.write(PairingStore.clientNameFile, Array("HU-0A1D00\n".utf8))
        try files.write(BondStore.localIRKFile, Array(1...16))
        var names = AppNameCache()
        names.insert("Old App", for: AppIdentifier("com.example.old"))
        try files.write(AppNameStore.file, names.encoded())
        let bond = BondRecord(peerIdentityAddress: BluetoothAddress(value: 0x1122_3344_5566, kind: .public),
                              peerIRK: IdentityResolvingKey(bytes: Array(repeating: UInt8(7), count: 16)),
                              longTermKey: LongTermKey(bytes: Array(repeating: UInt8(9), count: 16))!, ediv: 0, rand: 0,
                              keySize: 16, authenticated: true, secureConnections: true, localIRK: nil)
        try files.write("bond-" + hexString(Array("Old-Phone".utf8)), bond.encoded())
        return dir
    }

    func contents(_ dir: URL) -> [String: Data] {
        var out: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] {
            out[name] = FileManager.default.contents(atPath: dir.appendingPathComponent(name).path)
        }
        return out
    }

    /// Pairs with `anna`, shows a Google Maps instruction (whose app name the
    /// firmware learns and tries to keep), and checks what the failed writes did.
    func runWithBrokenState(launcher: (URL, URL) -> [String], stateSeenAt: (RunningHeadUnit) -> URL, error: String) throws {
        let old = try oldState()
        let before = contents(old)
        let state = Paths.temporaryDirectory("broken-state").appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try RunningHeadUnit(hci: phone.hciSpec, stateDirectory: state, name: "broken-state",
                                       launcher: launcher(old, state))
        defer { unit.stop() }
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String,
                                   "no pairing: \(unit.stderr.all.suffix(5))")
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        #expect(unit.waitFor("encrypted", timeout: 30) != nil)
        #expect(phone.waitFor("ancs_session", timeout: 30) { $0["state"] as? String == "started" } != nil)
        try phone.command("post_notification", ["phone": "anna", "app": "com.google.Maps", "category": "location",
                                                "app_name": "Google Maps", "title": "In 500 m", "message": "Turn left"])
        // Still working: the instruction is on the screen.
        #expect(unit.waitFor("notification", timeout: 20) { $0["action"] as? String == "shown" } != nil)
        Thread.sleep(forTimeInterval: 0.5)

        // Clear errors: in the event log, on stderr, and on the console.
        let failures = unit.allEvents.filter { $0["event"] as? String == "error" && $0["what"] as? String == "state" }
        #expect(failures.count >= 3, "expected failed writes of the server, the bond and the app names: \(failures)")
        #expect(failures.allSatisfy { ($0["detail"] as? String)?.contains(error) == true }, "\(failures)")
        let stderr = unit.stderr.all
        for what in ["cannot remember", "cannot store the bond with", "cannot keep app names"] {
            #expect(stderr.contains { $0.contains(" error ") && $0.contains(what) && $0.contains(error) },
                    "no error line '\(what)' in \(stderr.filter { $0.contains("cannot") })")
        }
        unit.type("status")
        let status = unit.console.next(timeout: 5) { $0.hasPrefix("state files:") }
        #expect(status?.contains("WRITE FAILED") == true && status?.contains(error) == true, "\(status ?? "no status")")
        #expect(unit.process.isRunning)

        // The old state, byte for byte, and nothing else.
        let after = contents(stateSeenAt(unit)).filter { $0.key != "zz-filler" }
        #expect(after == before, "state changed: \(after.keys.sorted()) vs \(before.keys.sorted())")
        unit.stop()
        #expect(unit.process.terminationStatus == 0)
    }

    static var canUseMountNamespaces: Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        p.arguments = ["-rm", "true"]
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// `unshare -rm sh -c SCRIPT sh OLD STATE headunit ARGS...`: SCRIPT sets
    /// up the state directory in a private mount namespace and execs the firmware.
    func launcher(_ script: String) -> (URL, URL) -> [String] {
        { old, state in
            ["/usr/bin/unshare", "-rm", "sh", "-c", "set -e; old=\"$1\"; state=\"$2\"; shift 2; " + script + "; exec \"$@\"",
             "sh", old.path, state.path]
        }
    }

    @Test func fullDataPartition() throws {
        try #require(Self.canUseMountNamespaces, "unshare -rm (user and mount namespaces) is needed for this test")
        // A 64 KiB tmpfs over the state directory, the old state copied in, the rest filled up.
        try runWithBrokenState(launcher: launcher("""
            mount -t tmpfs -o size=64k tmpfs "$state"; cp -a "$old"/. "$state"/; \
            dd if=/dev/zero of="$state/zz-filler" bs=1024 2>/dev/null || true
            """),
            // The tmpfs is seen only inside the firmware's mount namespace.
            stateSeenAt: { unit in URL(fileURLWithPath: "/proc/\(unit.process.processIdentifier)/root" + unit.stateDirectory.path) },
            error: "No space left on device")
    }

    @Test func readOnlyDataPartition() throws {
        try #require(Self.canUseMountNamespaces, "unshare -rm (user and mount namespaces) is needed for this test")
        // The old state, then the state directory bound read-only over itself
        // (root ignores a 0500 mode; a read-only mount it does not).
        try runWithBrokenState(launcher: launcher("""
            cp -a "$old"/. "$state"/; mount --bind "$state" "$state"; mount -o remount,bind,ro "$state"
            """),
            stateSeenAt: { $0.stateDirectory }, error: "Read-only file system")
    }
}
