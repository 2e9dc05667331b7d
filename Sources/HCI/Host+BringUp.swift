import BluetoothCore

/// Controller bring-up (the steps are `ControllerBringUp`'s) and recovery:
/// a controller that misbehaves loses every link and is brought up again
/// after a back-off.
extension Host {
    /// Starts bring-up from HCI Reset.
    func startBringUp() {
        generation += 1
        isReady = false
        // A reset controller forgets its advertising too.
        advertiser.controllerLost()
        controller = ControllerInfo()
        // A reset controller forgets everything in flight; start counting afresh.
        commands.restartCredits()
        let machine = ControllerBringUp()
        bringUp = machine
        send(machine.firstCommand, for: .bringUp(generation: generation))
    }

    /// The result of a bring-up step's command. A result from an earlier
    /// attempt (the generation moved on) is dropped.
    func bringUpStepCompleted(_ result: CommandResult, generation: Int) {
        guard generation == self.generation, var machine = bringUp else { return }
        // Unanswered: the command timeout has started recovery already,
        // or the transport closed and `start` begins again.
        if result == .notAnswered { return }
        let progress = machine.completed(result)
        bringUp = machine
        switch progress {
        case .send(let next):
            send(next, for: .bringUp(generation: generation))
        case .ready(let info):
            bringUp = nil
            controllerReady(info)
        case let .failed(step, failure):
            bringUp = nil
            Log.error("hci", "bring-up failed at \(step): \(failure); resetting the controller")
            recover(reason: "bring-up failed at \(step): \(failure)")
        }
    }

    private func controllerReady(_ info: ControllerInfo) {
        controller = info
        aclCredits = info.aclBufferCount
        isReady = true
        // Before `.ready` reaches the owner: our identity address goes to
        // the controller ahead of any scan the owner starts.
        advertiser.controllerReady(info, now: now)
        pumpAdvertiser()
        recoveryBackoff = configuration.recoveryBackoffMilliseconds
        Log.info("hci", "controller \(info.address) ready: Bluetooth \(info.versionName), manufacturer 0x\(hex(info.manufacturer, digits: 4)), LE ACL \(info.aclBufferCount) x \(info.aclDataLength) bytes, \(commandForm)")
        emit(.ready(info))
    }

    /// Drops all state and schedules a fresh bring-up after a back-off that
    /// doubles up to a ceiling: a controller that never answers costs one
    /// attempt every 30 s, not a busy loop.
    func recover(reason: String) {
        generation += 1
        dropEverything()
        emit(.controllerReset(reason: reason))
        recoveryAt = now.adding(milliseconds: recoveryBackoff)
        recoveryBackoff = min(recoveryBackoff * 2, configuration.recoveryBackoffMaxMilliseconds)
    }

    /// The controller is gone: every link ends, a connection in progress
    /// fails, and every command completes unanswered.
    func dropEverything() {
        isReady = false
        isScanning = false
        scanPausedForLists = nil
        for handle in connections.keys.sorted() {
            linkGone(handle)
            emit(.disconnected(handle: handle, reason: .hardwareFailure))
        }
        if let peer = connectingTo {
            connectingTo = nil
            emit(.connectionFailed(peer: peer, status: .hardwareFailure))
        }
        advertiser.controllerLost()
        bringUp = nil
        for purpose in commands.dropAll() { completed(purpose, .notAnswered) }
    }
}
