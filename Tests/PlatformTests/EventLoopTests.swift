import BluetoothCore
import CLinux
import Testing
@testable import Platform

@Suite(.serialized) struct EventLoopTests {
    @Test func timersFireInOrderAndIdleLoopSleeps() throws {
        let loop = try EventLoop()
        var fired: [Int] = []
        let start = Clock.now()
        loop.schedule(at: start.adding(milliseconds: 60)) { fired.append(2); loop.stop() }
        loop.schedule(at: start.adding(milliseconds: 20)) { fired.append(1) }
        loop.run()
        #expect(fired == [1, 2])
        #expect(Clock.now().millisecondsSince(start) >= 60)
        // Two timers: a handful of wake-ups, not a spin.
        #expect(loop.wakeups <= 4)
    }

    @Test func readableDescriptorIsDispatched() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        try FileDescriptor.setNonBlocking(fds[0])
        var got: [UInt8] = []
        // Unowned: the loop keeps its handlers (LeakSanitizer finds the cycle).
        loop.watch(fds[0]) { [unowned loop] _ in
            if let bytes = try? FileDescriptor.read(fds[0]) { got += bytes }
            loop.stop()
        }
        loop.schedule(at: Clock.now().adding(milliseconds: 10)) {
            _ = try? FileDescriptor.write(fds[1], [1, 2, 3][...])
        }
        loop.run(until: Clock.now().adding(seconds: 2)) { true }
        #expect(got == [1, 2, 3])
    }

    @Test func cancelledTimerNeverFires() throws {
        let loop = try EventLoop()
        var fired = false
        let t = loop.schedule(at: Clock.now().adding(milliseconds: 5)) { fired = true }
        loop.cancel(t)
        loop.run(until: Clock.now().adding(milliseconds: 30)) { true }
        #expect(!fired)
    }
}

@Suite(.serialized) struct EventLoopTimerTests {
    @Test func rescheduleMovesATimerAndNilCancelsIt() throws {
        let loop = try EventLoop()
        var fired: [String] = []
        let start = Clock.now()
        var moved: EventLoop.TimerID?
        loop.reschedule(&moved, at: start.adding(milliseconds: 500)) { fired.append("moved") }
        loop.reschedule(&moved, at: start.adding(milliseconds: 10)) { fired.append("moved") }
        var cancelled: EventLoop.TimerID?
        loop.reschedule(&cancelled, at: start.adding(milliseconds: 5)) { fired.append("cancelled") }
        loop.reschedule(&cancelled, at: nil) { fired.append("cancelled") }
        #expect(cancelled == nil)
        loop.run(until: start.adding(milliseconds: 100)) { fired.isEmpty }
        #expect(fired == ["moved"])
        #expect(Clock.now().millisecondsSince(start) < 400)
    }

    /// A handler that sets a timer already due does not run it in the same
    /// pass (that could loop forever), and due timers run earliest first.
    @Test func aTimerSetDueByAHandlerRunsOnTheNextTurn() throws {
        let loop = try EventLoop()
        var order: [Int] = []
        let start = Clock.now()
        loop.schedule(at: start.adding(milliseconds: 2)) {
            order.append(2)
            loop.schedule(at: .zero) { order.append(3); loop.stop() }
        }
        loop.schedule(at: start.adding(milliseconds: 1)) { order.append(1) }
        var spin = timespec(tv_sec: 0, tv_nsec: 5_000_000)
        _ = nanosleep(&spin, nil)
        // Both are due before the first turn; the third comes a turn later.
        loop.run(until: start.adding(seconds: 2)) { true }
        #expect(order == [1, 2, 3])
        #expect(loop.wakeups == 2)
    }
}
