import BluetoothCore

/// The scan the owner asked for, kept to resume it after a pause.
struct ScanSettings {
    var active: Bool
    var interval: UInt16
    var window: UInt16
    var filterDuplicates: Bool
}

/// Scanning, and LE connections as central, in the controller's command
/// form (`LECommandForm`).
extension Host {
    /// Scans, in the controller's command form. Only once the controller is
    /// ready: before that the form is not known, and a legacy command in
    /// the middle of bring-up could commit a strict controller to the
    /// legacy form (Core Vol 4 Part E 3.1.1). The owner scans on `.ready`.
    public func startScanning(active: Bool, interval: UInt16 = 0x0060, window: UInt16 = 0x0030, filterDuplicates: Bool = false) {
        guard isReady else {
            Log.debug("hci", "scan not started: the controller is not ready")
            return
        }
        let settings = ScanSettings(active: active, interval: interval, window: window, filterDuplicates: filterDuplicates)
        if scanPausedForLists != nil {
            // Resumed with these settings once the lists are programmed.
            scanPausedForLists = settings
            return
        }
        lastScan = settings
        if isScanning { send(scanEnable(false, filterDuplicates: false)) }
        send(commandForm.isExtended
            ? .leSetExtendedScanParameters(active: active, interval: interval, window: window)
            : .leSetScanParameters(active: active, interval: interval, window: window))
        send(scanEnable(true, filterDuplicates: filterDuplicates), for: .scanEnable)
    }

    public func stopScanning() {
        scanPausedForLists = nil
        guard isScanning else { return }
        isScanning = false
        send(scanEnable(false, filterDuplicates: false))
    }

    /// Stops the scan while the advertiser programs the resolving list
    /// (which must not change while the controller scans), and resumes it
    /// with the owner's settings once that is done.
    func pauseScanningForLists(_ pause: Bool) {
        if pause, isScanning {
            Log.info("hci", "scanning paused while the resolving list is programmed")
            let settings = lastScan
            stopScanning()
            scanPausedForLists = settings
        } else if !pause, let settings = scanPausedForLists {
            scanPausedForLists = nil
            startScanning(active: settings.active, interval: settings.interval, window: settings.window,
                          filterDuplicates: settings.filterDuplicates)
        }
    }

    /// LE Set (Extended) Scan Enable, in the controller's command form.
    private func scanEnable(_ enable: Bool, filterDuplicates: Bool) -> HCICommand {
        commandForm.isExtended ? .leSetExtendedScanEnable(enable, filterDuplicates: filterDuplicates)
            : .leSetScanEnable(enable, filterDuplicates: filterDuplicates)
    }

    /// Starts an LE connection as central. Scanning stops first: many
    /// controllers refuse to initiate while scanning.
    public func connect(to peer: BluetoothAddress, parameters: ConnectionParameters = .default) {
        if let busy = connectingTo {
            Log.warning("hci", "connect to \(peer) ignored: a connection to \(busy) is being set up")
            return
        }
        guard isReady else {
            // As for a scan: the command form is not known yet.
            Log.info("hci", "connect to \(peer) refused: the controller is not ready")
            return emit(.connectionFailed(peer: peer, status: .commandDisallowed))
        }
        stopScanning()
        connectingTo = peer
        let command: HCICommand = commandForm.isExtended
            ? .leExtendedCreateConnection(peer: peer, parameters: parameters)
            : .leCreateConnection(peer: peer, parameters: parameters)
        send(command, for: .connect(peer))
    }

    /// LE (Extended) Create Connection refused: the attempt is over.
    func connectCompleted(_ peer: BluetoothAddress, _ result: CommandResult) {
        let status = result.status
        if !status.isSuccess, connectingTo == peer {
            connectingTo = nil
            emit(.connectionFailed(peer: peer, status: status))
        }
    }

    /// Cancels a connection attempt; `.connectionFailed` follows (status 0x02)
    /// unless the link came up first. One command for both forms (7.8.13).
    public func cancelConnect() {
        guard connectingTo != nil else { return }
        send(.leCreateConnectionCancel())
    }
}
