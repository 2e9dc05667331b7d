import Glibc
import Testing
@testable import Platform

@Suite struct SchedulingTests {
    /// The calling thread's policy as the kernel reports it: field 41 of
    /// /proc/thread-self/stat (0 SCHED_OTHER, 3 SCHED_BATCH).
    func policy() throws -> Int {
        let bytes = try ReadFile.prefix("/proc/thread-self/stat", limit: 4096)
        let text = String(decoding: bytes, as: UTF8.self)
        // Fields after the command name, which may hold spaces, start at 3.
        let afterName = text[text.index(after: try #require(text.lastIndex(of: ")")))...]
        let fields = afterName.split(separator: " ")
        return try #require(Int(fields[41 - 3]))
    }

    @Test func batchPutsTheThreadUnderSchedBatch() throws {
        #expect(try policy() == 0)
        #expect(Scheduling.batch())
        #expect(try policy() == 3)
        // Back to SCHED_OTHER for the tests that run on this thread next.
        var parameters = sched_param(sched_priority: 0)
        #expect(sched_setscheduler(0, SCHED_OTHER, &parameters) == 0)
        #expect(try policy() == 0)
    }
}
