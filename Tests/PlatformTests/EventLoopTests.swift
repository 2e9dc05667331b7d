import BluetoothCore
import CLinux
import Testing
@testable import Platform

/// A device for the loop that records what it was told.
final class RecordingDevice: LoopDevice {
    var fds: [Int32] = []
    var deadline: Instant?
    var handled: [(fd: Int32, readable: Bool)] = []
    var timeouts = 0

    func addDescriptors(to set: inout PollSet) { for fd in fds { set.add(fd) } }
    func handle(_ readiness: Readiness, on fd: Int32, now: Instant) { handled.append((fd, readiness.readable)) }
    var nextDeadline: Instant? { deadline }
    func handleTimeout(now: Instant) {
        timeouts += 1
        deadline = nil
    }
}

@Suite(.serialized) struct EventLoopTests {
    @Test func anIdleWaitSleepsUntilTheDeadline() throws {
        let loop = try EventLoop()
        let start = Clock.now()
        var set = PollSet()
        #expect(loop.wait(&set, until: start.adding(milliseconds: 60)) == .ready)
        #expect(Clock.now().millisecondsSince(start) >= 60)
        // One sleep, not a spin.
        #expect(loop.wakeups <= 2)
    }

    @Test func aReadableDescriptorIsReportedWithItsOwner() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        try FileDescriptor.setNonBlocking(fds[0])
        var set = PollSet()
        set.owner = 3
        set.add(fds[0])
        _ = try FileDescriptor.write(fds[1], [1, 2, 3][...])
        #expect(loop.wait(&set, until: Clock.now().adding(seconds: 2)) == .ready)
        #expect(set.readiness(0).readable)
        #expect(set.owners[0] == 3)
        #expect(try FileDescriptor.read(fds[0]) == [1, 2, 3])
    }

    @Test func inputHeldAlreadyEndsTheWaitAtOnce() throws {
        let loop = try EventLoop()
        var set = PollSet()
        set.addReady()
        let start = Clock.now()
        #expect(loop.wait(&set, until: nil) == .ready)
        #expect(set.readiness(0).readable)
        #expect(Clock.now().millisecondsSince(start) < 1000)
    }
}

@Suite(.serialized) struct LoopDevicesTests {
    /// Readiness goes to the device that asked for the descriptor; only a
    /// device whose deadline has passed gets its timeout.
    @Test func readinessAndDeadlinesGoToTheirDevices() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        try FileDescriptor.setNonBlocking(fds[0])
        let reader = RecordingDevice()
        reader.fds = [fds[0]]
        let due = RecordingDevice()
        let later = RecordingDevice()
        let start = Clock.now()
        due.deadline = start.adding(milliseconds: 10)
        later.deadline = start.adding(seconds: 60)
        let devices: [any LoopDevice] = [reader, due, later]
        // The loop sleeps until the earliest deadline, runs it, and stops.
        loop.run(devices, until: start.adding(seconds: 2)) { due.timeouts == 0 }
        #expect(due.timeouts == 1)
        #expect(later.timeouts == 0)
        #expect(reader.handled.isEmpty)
        _ = try FileDescriptor.write(fds[1], [7][...])
        loop.run(devices, until: Clock.now().adding(seconds: 2)) { reader.handled.isEmpty }
        #expect(reader.handled.map(\.fd) == [fds[0]])
        #expect(later.timeouts == 0)
    }
}

/// A device whose reading moves its own deadline: a transport that finds
/// its peer gone and schedules the reopen at once.
final class ReschedulingDevice: LoopDevice {
    var deadlineAfterRead: Instant?
    var deadline: Instant?
    var deadlineAsked = 0
    var timeouts = 0

    func addDescriptors(to set: inout PollSet) { set.addReady() }
    func handle(_ readiness: Readiness, on fd: Int32, now: Instant) { deadline = deadlineAfterRead }
    var nextDeadline: Instant? {
        deadlineAsked += 1
        return deadline
    }
    func handleTimeout(now: Instant) {
        timeouts += 1
        deadline = nil
    }
}

@Suite struct LoopDevicesDispatchTests {
    /// A device with nothing to read still gets its timeout when its
    /// deadline has passed, and one whose deadline has not come does not.
    @Test func aDeviceNotHandledStillTimesOut() {
        let now = Instant(milliseconds: 1_000)
        let due = RecordingDevice()
        due.deadline = now
        let later = RecordingDevice()
        later.deadline = now.adding(milliseconds: 1)
        var devices = LoopDevices([due, later])
        var set = PollSet()
        #expect(devices.fill(&set) == now)
        devices.dispatch(&set, now: now)
        #expect(due.timeouts == 1)
        #expect(later.timeouts == 0)
        // The next wait: the timeout cleared it.
        #expect(devices.fill(&set) == now.adding(milliseconds: 1))
        devices.dispatch(&set, now: now.adding(milliseconds: 1))
        #expect(later.timeouts == 1)
        #expect(devices.fill(&set) == nil)
    }

    /// A device handed readiness is asked again: what it read may have
    /// made a deadline due now, and its timeout runs in the same dispatch.
    @Test func aDeviceHandledIsAskedAgainAfterItsRead() {
        let now = Instant(milliseconds: 1_000)
        let device = ReschedulingDevice()
        device.deadlineAfterRead = now
        var devices = LoopDevices([RecordingDevice(), device])
        var set = PollSet()
        #expect(devices.fill(&set) == nil)
        #expect(set.hasReadyAlready)
        #expect(set.owners.last == 1)
        devices.dispatch(&set, now: now)
        #expect(device.timeouts == 1)
        #expect(device.deadlineAsked == 2)
    }

    /// With nothing ready and no deadline passed, no device is asked again.
    @Test func aQuietWakeUpAsksNoDeviceAgain() {
        let now = Instant(milliseconds: 1_000)
        let device = ReschedulingDevice()
        device.deadline = now.adding(milliseconds: 5)
        var devices = LoopDevices([device])
        var set = PollSet()
        #expect(devices.fill(&set) == now.adding(milliseconds: 5))
        set.setReadiness(0, Readiness(revents: 0))
        devices.dispatch(&set, now: now)
        #expect(device.deadlineAsked == 1)
        #expect(device.timeouts == 0)
        devices.dispatch(&set, now: now.adding(milliseconds: 5))
        #expect(device.timeouts == 1)
    }

    /// Input held already is counted as it is added, and forgotten with the set.
    @Test func heldInputIsCountedUntilTheSetIsEmptied() {
        var set = PollSet()
        set.add(0)
        #expect(!set.hasReadyAlready)
        set.addReady()
        #expect(set.hasReadyAlready)
        set.setReadiness(1, Readiness(revents: 0))
        #expect(!set.hasReadyAlready)
        set.setReadiness(1, Readiness(revents: Int16(POLLIN)))
        #expect(set.hasReadyAlready)
        set.removeAll()
        #expect(!set.hasReadyAlready)
        #expect(set.isEmpty)
    }
}
