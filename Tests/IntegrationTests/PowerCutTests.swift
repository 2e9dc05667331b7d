import Foundation
import Testing
@testable import App
import Platform
import SMP

/// Power cuts while the state files are written: a process rewrites bonds
/// and the remembered server in a loop and is killed with SIGKILL at random
/// moments. Every time, everything must load: a bond file is the old or the
/// new record, never a torn one, and the client name never changes.
@Suite struct PowerCutTests {
    var stressTool: URL { Paths.headunit.deletingLastPathComponent().appendingPathComponent("state-stress") }

    @Test func killDuringStateWritesNeverLeavesAStoreThatFailsToLoad() throws {
        let dir = Paths.temporaryDirectory("powercut").appendingPathComponent("state")
        let files = StateFiles(directory: dir.path)
        var clientName: String?
        var kills = 0
        for iteration in 0..<300 {
            let process = Process()
            process.executableURL = stressTool
            process.arguments = [dir.path]
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 1_000...(iteration < 10 ? 40_000 : 15_000)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            kills += 1

            let names = files.list()
            let bondNames = names.filter { $0.hasPrefix(BondStore.prefix) }
            let loaded = BondStore(files: files).all()
            #expect(loaded.count == bondNames.count, "iteration \(iteration): \(bondNames.count) bond files, \(loaded.count) load")
            let store = PairingStore(files: files)
            if names.contains(PairingStore.clientNameFile) {
                let name = store.clientName()
                if clientName == nil { clientName = name }
                #expect(name == clientName, "client name changed at iteration \(iteration)")
            }
            if names.contains(PairingStore.serverFile) {
                #expect(store.rememberedServer()?.hasPrefix("Phone-") == true, "iteration \(iteration)")
            }
        }
        #expect(kills == 300)
        #expect(clientName != nil)
        #expect(BondStore(files: files).all().count >= 1)
    }
}
