import BluetoothCore
import Testing
@testable import NavigationNotifier

/// Every rule of the NavigationNotifier pairing contract, driven through the
/// sans-I/O routine with the answers a phone would give.
@Suite struct PairingRoutineTests {
    let me = "HU-3F9A21"
    let phoneA = BluetoothAddress("4A:11:22:33:44:55", kind: .random)!
    let phoneB = BluetoothAddress("5B:11:22:33:44:66", kind: .random)!
    let h1 = ConnectionHandle(1)
    let h2 = ConnectionHandle(2)
    let t = Instant(milliseconds: 1000)

    func drain(_ r: PairingRoutine) -> [PairingAction] {
        var out: [PairingAction] = []
        while let a = r.pollAction() { out.append(a) }
        return out
    }

    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// Power-on, one phone seen and connected; returns after the SERVER NAME read is requested.
    func connect(_ r: PairingRoutine, _ address: BluetoothAddress, _ handle: ConnectionHandle) {
        r.advertiserSeen(address, connectable: true, advertisesService: true, now: t)
        #expect(drain(r).contains(.connect(address)))
        r.connected(handle, peer: address, now: t)
        #expect(drain(r) == [.readServerName(handle)])
    }

    @Test func firstPairingWithAnUnpairedPhone() {
        let r = PairingRoutine(clientName: me, rememberedServer: nil)
        r.start(now: t)
        #expect(drain(r) == [.startScanning(.fast), .stateChanged(.discovering)])
        // A phone not advertising the service, or not connectable, is ignored.
        r.advertiserSeen(phoneB, connectable: true, advertisesService: false, now: t)
        r.advertiserSeen(phoneB, connectable: false, advertisesService: true, now: t)
        #expect(drain(r).isEmpty)
        r.advertiserSeen(phoneA, connectable: true, advertisesService: true, now: t)
        #expect(drain(r) == [.stopScanning, .stateChanged(.connecting(server: nil)), .connect(phoneA)])
        r.connected(h1, peer: phoneA, now: t)
        #expect(drain(r) == [.readServerName(h1)])
        r.serverNameRead(h1, .value(bytes("Anna-iPhone-7F3A")), now: t)
        #expect(drain(r) == [.stateChanged(.connecting(server: "Anna-iPhone-7F3A")), .readPairedClientName(h1)])
        r.pairedClientNameRead(h1, .value(bytes("UNPAIRED")), now: t)
        #expect(drain(r) == [.writePairedClientName(h1, me)])
        r.writeCompleted(h1, .done, now: t)
        #expect(drain(r) == [.subscribePairedClientName(h1)])
        r.subscribeCompleted(h1, .done, now: t)
        #expect(drain(r) == [.remember(server: "Anna-iPhone-7F3A"), .stateChanged(.connected(server: "Anna-iPhone-7F3A")),
                             .serverAccepted(h1, server: "Anna-iPhone-7F3A")])
        #expect(r.rememberedServer == "Anna-iPhone-7F3A")
    }

    @Test func phoneAlreadyNamingUsIsNotWrittenAgain() {
        let r = PairingRoutine(clientName: me, rememberedServer: nil)
        r.start(now: t)
        _ = drain(r)
        connect(r, phoneA, h1)
        r.serverNameRead(h1, .value(bytes("Anna")), now: t)
        _ = drain(r)
        r.pairedClientNameRead(h1, .value(bytes(me)), now: t)
        #expect(drain(r) == [.subscribePairedClientName(h1)])
    }

    @Test func phonePairedWithAnotherClientIsSkippedForTheRound() {
        let r = PairingRoutine(clientName: me, rememberedServer: nil)
        r.start(now: t)
        _ = drain(r)
        connect(r, phoneA, h1)
        r.serverNameRead(h1, .value(bytes("Bob")), now: t)
        _ = drain(r)
        r.pairedClientNameRead(h1, .value(bytes("HU-000001")), now: t)
        #expect(drain(r) == [.disconnect(h1), .stateChanged(.discovering)])
        r.disconnected(h1, now: t)
        _ = drain(r)
        r.handleTimeout(now: r.nextDeadline!)
        #expect(drain(r) == [.startScanning(.fast)])
        // Rule 5: the same address is not tried again this round...
        r.advertiserSeen(phoneA, connectable: true, advertisesService: true, now: t)
        #expect(drain(r).isEmpty)
        // ...but another phone is.
        r.advertiserSeen(phoneB, connectable: true, advertisesService: true, now: t)
        #expect(drain(r).contains(.connect(phoneB)))
    }

    @Test func writeRefusedWith0x80SkipsThePhone() {
        let r = writingOurName(to: "Anna")
        r.writeCompleted(h1, .attError(0x80), now: t)
        #expect(drain(r) == [.disconnect(h1), .stateChanged(.discovering)])
        #expect(r.rememberedServer == nil)
    }

    @Test func rememberedPhoneIsTheOnlyOneAccepted() {
        let r = PairingRoutine(clientName: me, rememberedServer: "Anna")
        r.start(now: t)
        #expect(drain(r) == [.startScanning(.fast), .stateChanged(.remembered(server: "Anna"))])
        connect(r, phoneB, h1)
        r.serverNameRead(h1, .value(bytes("Bob")), now: t)
        #expect(drain(r) == [.disconnect(h1), .stateChanged(.remembered(server: "Anna"))])
        r.disconnected(h1, now: t)
        r.handleTimeout(now: r.nextDeadline!)
        _ = drain(r)
        // Rule 8: the remembered phone under a new address is still found by its name.
        connect(r, phoneA, h2)
        r.serverNameRead(h2, .value(bytes("Anna")), now: t)
        _ = drain(r)
        r.pairedClientNameRead(h2, .value(bytes(me)), now: t)
        #expect(drain(r) == [.subscribePairedClientName(h2)])
        r.subscribeCompleted(h2, .done, now: t)
        // Already remembered: no second remember action.
        #expect(drain(r) == [.stateChanged(.connected(server: "Anna")), .serverAccepted(h2, server: "Anna")])
    }

    @Test func rememberedPhoneThatWasUnpairedOnItsSideIsForgotten() {
        for value in ["UNPAIRED", "HU-OTHER"] {
            let r = PairingRoutine(clientName: me, rememberedServer: "Anna")
            r.start(now: t)
            _ = drain(r)
            connect(r, phoneA, h1)
            r.serverNameRead(h1, .value(bytes("Anna")), now: t)
            _ = drain(r)
            r.pairedClientNameRead(h1, .value(bytes(value)), now: t)
            #expect(drain(r) == [.forget(server: "Anna"), .disconnect(h1), .stateChanged(.discover)])
            #expect(r.rememberedServer == nil)
            // Rule 9: it waits for the user rather than grabbing the phone again.
            r.disconnected(h1, now: t)
            #expect(drain(r).isEmpty)
            #expect(r.nextDeadline == nil)
        }
    }

    func pairedRoutine() -> PairingRoutine {
        let r = PairingRoutine(clientName: me, rememberedServer: "Anna")
        r.start(now: t)
        _ = drain(r)
        connect(r, phoneA, h1)
        r.serverNameRead(h1, .value(bytes("Anna")), now: t)
        r.pairedClientNameRead(h1, .value(bytes(me)), now: t)
        r.subscribeCompleted(h1, .done, now: t)
        _ = drain(r)
        #expect(r.state == .connected(server: "Anna"))
        return r
    }

    @Test func unpairOnThePhoneDuringTheConnection() {
        let r = pairedRoutine()
        r.pairedClientNameChanged(h1, bytes("UNPAIRED"), now: t)
        #expect(drain(r) == [.forget(server: "Anna"), .disconnect(h1), .stateChanged(.discover)])
        r.disconnected(h1, now: t)
        #expect(drain(r).isEmpty)
        // The user starts discovery again.
        r.discover(now: t)
        #expect(drain(r) == [.startScanning(.fast), .stateChanged(.discovering)])
    }

    @Test func ourOwnNameNotifiedAgainChangesNothing() {
        let r = pairedRoutine()
        r.pairedClientNameChanged(h1, bytes(me), now: t)
        #expect(drain(r).isEmpty)
    }

    @Test func unpairOnTheHeadUnitWritesUnpairedFirst() {
        let r = pairedRoutine()
        r.userUnpair(now: t)
        #expect(drain(r) == [.writePairedClientName(h1, "UNPAIRED")])
        r.writeCompleted(h1, .done, now: t)
        #expect(drain(r) == [.forget(server: "Anna"), .disconnect(h1), .stateChanged(.discover)])
        r.disconnected(h1, now: t)
        #expect(drain(r).isEmpty)
    }

    /// A phone free to pair, found with nothing remembered; our name is being written to it.
    func writingOurName(to server: String) -> PairingRoutine {
        let r = PairingRoutine(clientName: me, rememberedServer: nil)
        r.start(now: t)
        _ = drain(r)
        connect(r, phoneA, h1)
        r.serverNameRead(h1, .value(bytes(server)), now: t)
        r.pairedClientNameRead(h1, .value(bytes("UNPAIRED")), now: t)
        #expect(drain(r).last == .writePairedClientName(h1, me))
        return r
    }

    /// Rule 7 while the link is still being checked: our name is on the
    /// phone once written, so it is taken back before the link goes.
    @Test func unpairAfterOurNameWasWrittenWritesUnpairedBeforeTheLinkGoes() {
        let r = writingOurName(to: "Anna")
        r.writeCompleted(h1, .done, now: t)
        #expect(drain(r) == [.subscribePairedClientName(h1)])
        r.userUnpair(now: t)
        #expect(drain(r) == [.writePairedClientName(h1, "UNPAIRED")])
        // The subscription confirmed meanwhile accepts nothing.
        r.subscribeCompleted(h1, .done, now: t)
        #expect(drain(r).isEmpty)
        r.writeCompleted(h1, .done, now: t)
        #expect(drain(r) == [.disconnect(h1), .stateChanged(.discover)])
        #expect(r.rememberedServer == nil)
        r.disconnected(h1, now: t)
        #expect(drain(r).isEmpty)
    }

    @Test func unpairWhileOurNameIsBeingWrittenTakesItBackOnceWritten() {
        let r = writingOurName(to: "Anna")
        r.userUnpair(now: t)
        #expect(drain(r).isEmpty) // one ATT request at a time: wait for the name's answer
        r.writeCompleted(h1, .done, now: t)
        #expect(drain(r) == [.writePairedClientName(h1, "UNPAIRED")])
        r.writeCompleted(h1, .failed, now: t) // the phone went: forget anyway
        #expect(drain(r) == [.disconnect(h1), .stateChanged(.discover)])
    }

    @Test func unpairWhileOurNameIsRefusedWritesNothing() {
        let r = writingOurName(to: "Bob")
        r.userUnpair(now: t)
        r.writeCompleted(h1, .attError(0x80), now: t) // another head unit was faster
        #expect(drain(r) == [.disconnect(h1), .stateChanged(.discover)])
    }

    @Test func unpairWhileCheckingTheRememberedPhoneWritesUnpairedOnlyIfItNamesUs() {
        for (value, expected) in [(me, [PairingAction.writePairedClientName(h1, "UNPAIRED")]),
                                  ("HU-000001", [.forget(server: "Anna"), .disconnect(h1), .stateChanged(.discover)])] {
            let r = PairingRoutine(clientName: me, rememberedServer: "Anna")
            r.start(now: t)
            _ = drain(r)
            connect(r, phoneA, h1)
            r.userUnpair(now: t) // before the SERVER NAME is known
            #expect(drain(r).isEmpty)
            r.serverNameRead(h1, .value(bytes("Anna")), now: t)
            #expect(drain(r) == [.readPairedClientName(h1)])
            r.pairedClientNameRead(h1, .value(bytes(value)), now: t)
            #expect(drain(r) == expected)
            if value == me {
                r.writeCompleted(h1, .done, now: t)
                #expect(drain(r) == [.forget(server: "Anna"), .disconnect(h1), .stateChanged(.discover)])
            }
            r.disconnected(h1, now: t)
            #expect(drain(r).isEmpty)
            #expect(r.rememberedServer == nil)
        }
    }

    @Test func linkLostDuringOurUnpairStillForgets() {
        let r = pairedRoutine()
        r.userUnpair(now: t)
        _ = drain(r)
        r.disconnected(h1, now: t)
        #expect(drain(r) == [.forget(server: "Anna"), .stateChanged(.discover)])
        r.writeCompleted(h1, .failed, now: t)
        #expect(drain(r).isEmpty)
    }

    @Test func unpairWhileNotConnectedJustForgets() {
        let r = PairingRoutine(clientName: me, rememberedServer: "Anna")
        r.start(now: t)
        _ = drain(r)
        r.userUnpair(now: t)
        #expect(drain(r) == [.stopScanning, .forget(server: "Anna"), .stateChanged(.discover)])
    }

    @Test func linkLossReconnectsAutomatically() {
        let r = pairedRoutine()
        r.disconnected(h1, now: t)
        #expect(drain(r) == [.startScanning(.fast), .stateChanged(.remembered(server: "Anna"))])
        #expect(r.rememberedServer == "Anna")
    }

    @Test func userDisconnectKeepsThePhoneButStopsLooking() {
        let r = pairedRoutine()
        r.userDisconnect(now: t)
        #expect(drain(r) == [.disconnect(h1), .stateChanged(.remembered(server: "Anna"))])
        r.disconnected(h1, now: t)
        #expect(drain(r).isEmpty)
        #expect(r.nextDeadline == nil)
        r.discover(now: t)
        #expect(drain(r) == [.startScanning(.fast)])
    }

    @Test func connectAskedWhileTheLinkIsStillGoingDownStartsOnceItIsDown() {
        let r = pairedRoutine()
        r.userDisconnect(now: t)
        _ = drain(r)
        r.discover(now: t)
        #expect(drain(r).isEmpty)
        r.disconnected(h1, now: t)
        r.handleTimeout(now: r.nextDeadline!)
        #expect(drain(r).contains(.startScanning(.fast)))
    }

    @Test func connectionAttemptTimesOutAndScanningResumes() {
        let r = PairingRoutine(clientName: me, rememberedServer: nil)
        r.start(now: t)
        _ = drain(r)
        r.advertiserSeen(phoneA, connectable: true, advertisesService: true, now: t)
        _ = drain(r)
        r.handleTimeout(now: r.nextDeadline!)
        #expect(drain(r) == [.cancelConnect])
        r.connectionFailed(peer: phoneA, now: t)
        r.handleTimeout(now: r.nextDeadline!)
        #expect(drain(r) == [.stateChanged(.discovering), .startScanning(.fast)])
    }

    @Test func scanningSlowsDownWhenNothingIsFound() {
        let r = PairingRoutine(clientName: me, rememberedServer: nil)
        r.start(now: t)
        _ = drain(r)
        let slowAt = r.nextDeadline!
        #expect(slowAt == t.adding(milliseconds: 30_000))
        r.handleTimeout(now: slowAt)
        #expect(drain(r) == [.startScanning(.slow)])
        #expect(r.nextDeadline == nil) // no timers while slowly scanning: no wake-ups
    }

    @Test func malformedNamesAreRejected() {
        let r = PairingRoutine(clientName: me, rememberedServer: nil)
        r.start(now: t)
        _ = drain(r)
        connect(r, phoneA, h1)
        r.serverNameRead(h1, .value([]), now: t)
        #expect(drain(r) == [.disconnect(h1), .stateChanged(.discovering)])
        let r2 = PairingRoutine(clientName: me, rememberedServer: nil)
        r2.start(now: t)
        _ = drain(r2)
        connect(r2, phoneA, h1)
        r2.serverNameRead(h1, .value([UInt8](repeating: 0x41, count: 33)), now: t)
        #expect(drain(r2) == [.disconnect(h1), .stateChanged(.discovering)])
    }

    @Test func linkLostWhileCheckingRejectsAndResumes() {
        let r = PairingRoutine(clientName: me, rememberedServer: nil)
        r.start(now: t)
        _ = drain(r)
        connect(r, phoneA, h1)
        r.disconnected(h1, now: t)
        r.handleTimeout(now: r.nextDeadline!)
        #expect(drain(r) == [.stateChanged(.discovering), .startScanning(.fast)])
    }
}
