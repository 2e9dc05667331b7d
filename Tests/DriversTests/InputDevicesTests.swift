import BluetoothCore
import CLinux
import Foundation
import Input
import Testing
@testable import Drivers
import Platform

/// InputDevices on FIFOs in a temporary folder: the real open, inotify and
/// read paths, with capabilities given by the test instead of ioctls.
@Suite(.serialized) struct InputDevicesTests {
    let touchAndKeys = InputCapabilities(name: "panel", keys: [.buttonTouch, .nextSong, .volumeUp],
                                         axes: [AbsoluteAxisCode.x: AxisRange(minimum: 0, maximum: 799),
                                                AbsoluteAxisCode.y: AxisRange(minimum: 0, maximum: 479)])

    func makeFolder() throws -> String {
        let dir = NSTemporaryDirectory() + "input-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        return dir
    }

    /// The capabilities by node name, as the platform's probe would find them.
    func probe(_ table: [String: InputCapabilities]) -> InputDevices.Probe {
        return { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)") else { return nil }
            return table[(target as NSString).lastPathComponent]
        }
    }

    func event(_ type: EventType, _ code: UInt16, _ value: Int32) -> [UInt8] {
        EvdevDecoder.encode(InputEvent(microseconds: 1_000_000, type: type, code: code, value: value))
    }

    func keyPress(_ key: KeyCode) -> [UInt8] {
        event(.key, key.rawValue, 1) + event(.synchronization, 0, 0) + event(.key, key.rawValue, 0) + event(.synchronization, 0, 0)
    }

    func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    @Test func openDevicesReadAndHotPlug() throws {
        let dir = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(mkfifo(dir + "/event0", 0o600) == 0)
        #expect(mkfifo(dir + "/mouse0", 0o600) == 0)
        let loop = try EventLoop()
        let devices = InputDevices(panelWidth: 800, panelHeight: 480, directory: dir,
                                   probe: probe(["event0": touchAndKeys, "event1": touchAndKeys,
                                                 "event2": InputCapabilities(name: "power", keys: [KeyCode(116)]),
                                                 "mouse0": touchAndKeys]))
        var actions: [InputAction] = []
        devices.start(now: Clock.now())
        #expect(devices.openDevices.map { $0.path } == [dir + "/event0"])

        // A key press written in two pieces, split inside an event.
        let writer0 = open(dir + "/event0", O_WRONLY | O_NONBLOCK)
        #expect(writer0 >= 0)
        defer { close(writer0) }
        let bytes = keyPress(.nextSong)
        writeAll(writer0, Array(bytes[0..<10]))
        loop.run([devices], until: Clock.now().adding(milliseconds: 200)) {
            while let action = devices.pollAction() { actions.append(action) }
            return actions.isEmpty
        }
        #expect(actions.isEmpty)
        writeAll(writer0, Array(bytes[10...]))
        loop.run([devices], until: Clock.now().adding(seconds: 2)) {
            while let action = devices.pollAction() { actions.append(action) }
            return actions.isEmpty
        }
        #expect(actions == [.media(.nextTrack)])

        // Plugged in later: noticed through inotify, and a tap read from it.
        #expect(mkfifo(dir + "/event1", 0o600) == 0)
        #expect(mkfifo(dir + "/event2", 0o600) == 0) // a power button: not kept open
        loop.run([devices], until: Clock.now().adding(seconds: 2)) {
            while let action = devices.pollAction() { actions.append(action) }
            return devices.openDevices.count < 2
        }
        loop.run([devices], until: Clock.now().adding(milliseconds: 100)) {
            while let action = devices.pollAction() { actions.append(action) }
            return true
        }
        #expect(devices.openDevices.map { $0.path } == [dir + "/event0", dir + "/event1"])
        let writer1 = open(dir + "/event1", O_WRONLY | O_NONBLOCK)
        #expect(writer1 >= 0)
        defer { close(writer1) }
        actions.removeAll()
        writeAll(writer1, event(.key, KeyCode.buttonTouch.rawValue, 1) + event(.absolute, 0, 100) + event(.absolute, 1, 200)
                 + event(.synchronization, 0, 0) + event(.key, KeyCode.buttonTouch.rawValue, 0) + event(.synchronization, 0, 0))
        loop.run([devices], until: Clock.now().adding(seconds: 2)) {
            while let action = devices.pollAction() { actions.append(action) }
            return actions.isEmpty
        }
        #expect(actions == [.tap(TouchPoint(x: 100, y: 200))])

        // Unplugged: closed.
        #expect(unlink(dir + "/event0") == 0)
        loop.run([devices], until: Clock.now().adding(seconds: 2)) {
            while let action = devices.pollAction() { actions.append(action) }
            return devices.openDevices.count > 1
        }
        #expect(devices.openDevices.map { $0.path } == [dir + "/event1"])

        // The panel size follows the display.
        devices.setPanelSize(width: 400, height: 240)
        actions.removeAll()
        writeAll(writer1, event(.key, KeyCode.buttonTouch.rawValue, 1) + event(.absolute, 0, 799) + event(.absolute, 1, 479)
                 + event(.synchronization, 0, 0) + event(.key, KeyCode.buttonTouch.rawValue, 0) + event(.synchronization, 0, 0))
        loop.run([devices], until: Clock.now().adding(seconds: 2)) {
            while let action = devices.pollAction() { actions.append(action) }
            return actions.isEmpty
        }
        #expect(actions == [.tap(TouchPoint(x: 399, y: 239))])
        devices.stop()
        #expect(devices.openDevices.isEmpty)
    }

    @Test func missingOrRemovedDirectoryIsWaitedFor() throws {
        let dir = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let loop = try EventLoop()
        let input = dir + "/input"
        let devices = InputDevices(panelWidth: 800, panelHeight: 480, directory: input,
                                   probe: probe(["event3": touchAndKeys]))
        devices.directoryRetryMilliseconds = 50
        devices.start(now: Clock.now()) // logs and retries; never fails
        #expect(devices.openDevices.isEmpty)
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: false)
        #expect(mkfifo(input + "/event3", 0o600) == 0)
        loop.run([devices], until: Clock.now().adding(seconds: 2)) { devices.openDevices.isEmpty }
        #expect(devices.openDevices.map { $0.path } == [input + "/event3"])
        // The folder goes away and comes back.
        #expect(unlink(input + "/event3") == 0)
        #expect(rmdir(input) == 0)
        loop.run([devices], until: Clock.now().adding(milliseconds: 200)) { true }
        #expect(devices.openDevices.isEmpty)
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: false)
        #expect(mkfifo(input + "/event3", 0o600) == 0)
        loop.run([devices], until: Clock.now().adding(seconds: 2)) { devices.openDevices.isEmpty }
        #expect(devices.openDevices.map { $0.path } == [input + "/event3"])
        devices.stop()
    }

    @Test func inotifyRecords() {
        // IN_CREATE "event4" (padded to 16 bytes), then IN_DELETE "event12".
        var bytes: [UInt8] = []
        func record(_ wd: UInt32, _ mask: UInt32, _ name: String, padded: Int) {
            for v in [wd, mask, 0, UInt32(padded)] { bytes += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
            bytes += Array(name.utf8) + [UInt8](repeating: 0, count: padded - name.utf8.count)
        }
        record(1, 0x100, "event4", padded: 16)
        record(1, 0x200, "event12", padded: 16)
        #expect(InotifyRecord.parse(bytes) == [InotifyRecord(watch: 1, mask: 0x100, name: "event4"),
                                               InotifyRecord(watch: 1, mask: 0x200, name: "event12")])
        // A record whose length runs past the end stops the parse.
        #expect(InotifyRecord.parse(Array(bytes[0..<40])) == [InotifyRecord(watch: 1, mask: 0x100, name: "event4")])
        #expect(InotifyRecord.parse([1, 2, 3]).isEmpty)
        #expect(InputDevices.isEventNode("event0"))
        #expect(InputDevices.isEventNode("event17"))
        #expect(!InputDevices.isEventNode("event"))
        #expect(!InputDevices.isEventNode("mouse0"))
        #expect(!InputDevices.isEventNode("event1.tmp"))
    }
}
