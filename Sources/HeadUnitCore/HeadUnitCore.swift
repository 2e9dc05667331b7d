import AMS
import ANCS
import ATT
import BluetoothCore
import GATT
import HCI
import L2CAP
import Notifications
import NavigationNotifier
import NotifBridge
import SMP
import ScreenValues

/// The head unit without its I/O: the HCI host, L2CAP, one `PhoneLink` per
/// connection (GATT bearer, security manager, the NavigationNotifier client,
/// ANCS and AMS) and the pairing routine, fed bytes, time, console commands
/// and the driver's actions, like the protocol layers it wires.
///
/// Inputs: `start` and `transportClosed` (the transport opened, closed),
/// `receive` (H4 bytes from the controller),
/// `handleTimeout`, `command`, `perform`/`media`/`confirmComparison`,
/// `keysStored` (the NotifBridge key file), each with the time it happens
/// at, and the `StoredState` given at start.
/// Outputs, polled by the shell: `pollTransmit` (packets to the controller),
/// `pollEvent` (the event log), `pollStateWrite` (the state files),
/// `pollConsoleLine`, `screenModel` and `nextDeadline`.
///
/// Every input ends in `pump()`, which moves what each layer produced to
/// the next one until nothing is left, in the order a packet travels. Nothing calls back into the core:
/// GATT answers come out of each link's bearer as values and are routed
/// by their request ids (`PhoneLink.route`).
public final class HeadUnitCore {
    // The layers it wires, fed and drained by `pump()`.

    /// The HCI host. The shell's transport driver writes what it transmits
    /// and hands bytes read to `receive`.
    public let host: Host
    var l2cap = L2CAPLayer()
    /// Every connected phone; made in `linkUp`, ended in `linkDown`. Each
    /// holds what is about it alone, its pairing's passkey included.
    public private(set) var links = ConnectionTable<PhoneLink>()
    public let pairing: PairingRoutine
    public let notifications: NotificationModel
    let database: GATTDatabase
    /// The NotifBridge receiver, nil when the configuration turns it off.
    let notifBridge: NotifBridgeHost?
    /// Shared by every link: repeated failures with one phone back off.
    let attempts = PairingAttemptLimiter()
    let settings: CoreSettings
    let clock: CoreClock
    /// Every layer that draws random bytes draws them from here.
    let random: RandomSource
    let startedAt: Instant
    /// The controller was ready once: the pairing routine and advertising run.
    private(set) var started = false
    // Its state, in parts with one job each.

    /// Bonds, bonded clients' GATT state, app names, our IRK.
    var kept: KeptState
    /// What the screen shows besides the pairing state and the model.
    var shown = ShownState()
    /// The central role's scan.
    var scan = ScanState()
    /// The head unit as an accessory (Settings pairing, NotifBridge); nil
    /// when it does not advertise.
    var accessory: Accessory?
    /// Events, state writes and console lines for the shell.
    private var outbox = CoreOutbox()
    /// GhostDrop's L2CAP channel: its SPSM and what arrives on it (and
    /// the sessions over GATT).
    public internal(set) var ghostDrop: GhostDropChannel
    /// GhostDrop's GATT service in `database` (GhostDropGATT).
    let ghostDropGATT: GhostDropGATTHandles

    /// One line for the driver about something to do on the phone, in the
    /// screen's language when drawn, in English in the `error` event.
    public var hint: ScreenTextKey? { shown.hint }
    public var nowPlaying: NowPlayingState? { shown.nowPlaying }
    /// The phone's time of day, once read (kept after the link goes).
    public var phoneClock: PhoneClock? { shown.phoneClock }
    /// The passkey (or number to compare) on screen while a phone waits
    /// for it: its link's. One pairing at a time takes the screen; should
    /// two pairings the head unit started overlap, the newer link's shows.
    public var passkeyShown: String? { links.values.last { $0.passkeyShown != nil }?.passkeyShown }

    /// `random`: what every layer draws its random bytes from (pairing
    /// nonces, passkeys and keys, NotifBridge's ids and nonces); the
    /// system's in the firmware, a seeded one to repeat a run byte for byte.
    public init(settings: CoreSettings, stored: StoredState, now: Instant, host: Host = Host(),
                random: RandomSource = .system) {
        self.settings = settings
        self.host = host
        self.random = random
        ghostDrop = GhostDropChannel(random: random,
                                     partial: GhostDropPartial(resume: stored.ghostDropResume, written: stored.ghostDropWritten))
        ghostDrop.stateFreeBytes = stored.stateFreeBytes
        clock = CoreClock(now)
        startedAt = now
        notifications = NotificationModel(filter: settings.filter)
        pairing = PairingRoutine(clientName: stored.clientName, rememberedServer: stored.rememberedServer)
        // The one name: GAP's Device Name (which iOS shows once connected) is the advertised one.
        let name = HeadUnitName.of(deviceName: settings.deviceName, clientName: stored.clientName, notifBridge: settings.notifBridge)
        database = GATTDatabase(deviceName: name)
        notifBridge = settings.notifBridge
            ? NotifBridgeHost(database: database, keys: stored.notifBridgeKeys, model: notifications, random: random, now: now) : nil
        ghostDropGATT = database.addGhostDropService()
        // After every service is in it (NotifBridge adds its own): the
        // Database Hash bonded clients are compared with.
        kept = KeptState(stored, database: database)
        if settings.advertises, let identity = stored.identityAddress {
            accessory = Accessory(identity: identity, name: name)
            // Before the controller starts: Set Random Address must precede any scan.
            host.setIdentityAddress(identity)
        }
        bondsChanged()
        publishChannels()
        Log.info("headunit", "client name \(stored.clientName), remembered server \(pairing.rememberedServer ?? "none")")
        emit(.state(pairing.state))
    }

    // MARK: - Inputs

    /// The transport is open: bring the controller up.
    public func start(now: Instant) {
        clock.now = now
        host.start(now: now)
        pump()
    }

    /// Bytes read from the controller: any cut of the H4 stream.
    public func receive(_ bytes: [UInt8], now: Instant) {
        clock.now = now
        host.receive(bytes, now: now)
        // Every input ends in a pump that runs until nothing moves, so every
        // layer's queues are empty here, and bytes reach only the host: when
        // they gave it no event (a fragment of a longer frame, the
        // controller's count of completed packets), a pass would find
        // nothing. About half of a notification's reads are such.
        guard host.hasEvents else { return }
        pump()
    }

    /// The transport closed: every link is gone (`start` again once it reopens).
    public func transportClosed(now: Instant) {
        clock.now = now
        host.transportClosed(now: now)
        pump()
    }

    /// When `handleTimeout` is next due: the earliest of every layer's and
    /// link's, the accessory's pairing window and each link's time to
    /// secure itself (`accessoryTimeout`) included. The shell asks once
    /// per wake-up: the links are walked once, and each layer is asked
    /// where it lies (a layer's struct copied out to be asked cost more
    /// than the asking).
    public var nextDeadline: Instant? {
        var deadline = earliest(earliest(pairing.nextDeadline, host.nextDeadline), earliest(accessory?.pairingUntil, l2cap.nextDeadline))
        for link in links.values { deadline = earliest(deadline, earliest(link.nextDeadline, link.secureBy)) }
        return earliest(earliest(deadline, notifBridge?.receiver.nextDeadline), ghostDrop.nextDeadline)
    }

    public func handleTimeout(now: Instant) {
        clock.now = now
        host.handleTimeout(now: now)
        pairing.handleTimeout(now: now)
        l2cap.handleTimeout(now: now)
        accessoryTimeout(now: now)
        for link in links.values { link.handleTimeout(now: now) }
        notifBridge?.receiver.handleTimeout(now: now)
        ghostDrop.handleTimeout(now: now)
        pump()
    }

    /// Ends every link politely (the shell is shutting down); false when
    /// there were none. Nothing new starts after it: a phone paired from
    /// Settings would reconnect at once if we still advertised, and the
    /// routine would take its link's end for a link lost and connect again
    /// before the process exits. A GhostDrop file arriving has its resume
    /// state written at once, at the last chunk confirmed.
    public func disconnectAll(now: Instant) -> Bool {
        clock.now = now
        host.stopAdvertising()
        pairing.stop(now: now)
        ghostDrop.keepResumeStates()
        let handles = host.links.keys.sorted()
        for handle in handles { host.disconnect(handle, reason: .remoteUserTerminated) }
        pump()
        return !handles.isEmpty
    }

    // MARK: - Outputs

    /// The next packet for the controller.
    public func pollTransmit(now: Instant) -> HCIPacket? { host.pollTransmit(now: now) }
    public func pollEvent() -> CoreEvent? { outbox.events.popFirst() }
    /// True while `takeEvent()` has an event to give. The shell's loop is
    /// `while core.hasEvents { … core.takeEvent() … }`: a `while let` over
    /// `pollEvent` ends on a nil `CoreEvent?` (a large enum, kept in
    /// memory) that the caller destroys through the standard library's
    /// generic Optional, some 130 instructions a wake-up.
    public var hasEvents: Bool { !outbox.events.isEmpty }
    /// The next event, while `hasEvents`.
    public func takeEvent() -> CoreEvent { outbox.events.removeFirst() }
    public func pollStateWrite() -> StateWrite? { outbox.writes.popFirst() }
    /// True while `takeStateWrite()` has a change to give (see `hasEvents`).
    public var hasStateWrites: Bool { !outbox.writes.isEmpty }
    /// The next change for the state files, while `hasStateWrites`.
    public func takeStateWrite() -> StateWrite { outbox.writes.removeFirst() }
    /// A line for the console (answers to commands, the passkey).
    public func pollConsoleLine() -> String? { outbox.consoleLines.popFirst() }

    func emit(_ event: CoreEvent) { outbox.events.append(event) }
    func write(_ change: StateWrite) { outbox.writes.append(change) }
    func say(_ text: String) { outbox.consoleLines.append(text) }

    /// Something went wrong: the `error` event, and the hint on screen
    /// when the driver can mend it.
    func report(_ error: CoreError) {
        if let key = error.hint { shown.hint = key }
        emit(.error(error))
    }

    // MARK: - Host events

    private func handle(_ event: HostEvent, now: Instant) {
        switch event {
        case .ready:
            if !started {
                started = true
                if settings.findsNavigationNotifierPhones { pairing.start(now: now) }
                startAccessory(now: now)
            } else if let duty = scan.wanted {
                startScan(duty)
            }
        case .controllerReset(let reason):
            report(.controllerReset(reason: reason))
        case .advertisingReport(let report):
            guard let entry = scan.advertisers.take(report) ?? scan.advertisers.entries[report.address] else { return }
            pairing.advertiserSeen(entry.address, connectable: entry.connectable,
                                   advertisesService: entry.isNavigationNotifierPhone, now: now)
        case .connected(let link):
            linkUp(link, now: now)
        case let .connectionFailed(peer, _):
            pairing.connectionFailed(peer: peer, now: now)
        case let .disconnected(handle, reason):
            Log.info("headunit", "link \(handle) down: \(reason)")
            linkDown(handle, now: now)
        case let .l2capFrame(handle, frame):
            l2cap.receive(frame, on: handle)
        case let .encryptionChanged(handle, status, enabled):
            encryptionChanged(handle, status: status, enabled: enabled)
        case let .encryptionKeyRefreshed(handle, status):
            encryptionChanged(handle, status: status, enabled: true)
        case let .longTermKeyRequest(handle, random, ediv):
            longTermKeyRequested(handle, random: random, ediv: ediv, now: now)
        case let .encryptionKeySize(handle, result):
            encryptionKeySizeRead(handle, result, now: now)
        case let .commandCompleted(tag, result):
            commandCompleted(tag, result, now: now)
        case .connectionUpdated, .dataLengthChanged, .commandFailed:
            break
        }
    }

    /// The one place a link is made.
    private func linkUp(_ link: Link, now: Instant) {
        l2cap.linkConnected(L2CAPLink(handle: link.handle, role: link.role, peer: link.peer))
        let phone = PhoneLink(link: link, database: database)
        links[link.handle] = phone
        notifBridgeLinkUp(phone)
        // 32-byte names need an ATT_MTU of at least 35: exchange first.
        phone.bearer.exchangeMTU()
        // A phone that connected to us is not the pairing routine's.
        if link.role == .central {
            pairing.connected(link.handle, peer: link.peer, now: now)
        } else {
            accessoryLinkUp(phone, link, now: now)
        }
    }

    /// The one place a link ends, with everything on it.
    private func linkDown(_ handle: ConnectionHandle, now: Instant) {
        let gone = links.removeValue(forKey: handle)
        if let gone {
            // Requests still pending fail, and their users hear so first.
            gone.bearer.close()
            _ = routeBearerEvents(of: gone, now: now)
            // Its passkey and comparison, if any, go with it; another link's stay.
            gone.close(now: now)
        }
        notifBridgeLinkDown(gone)
        ghostDrop.end(.gatt(handle), now: now)
        // What is shown came from the phone: a link that was not the phone
        // takes nothing with it.
        if gone?.isThePhone == true {
            notifications.clear()
            shown.nowPlaying = nil
        }
        l2cap.linkDisconnected(handle)
        if let gone { accessoryLinkDown(gone, now: now) }
        pairing.disconnected(handle, now: now)
    }

    // MARK: - Moving work between layers

    /// Moves what each layer produced to the next one until nothing is
    /// left. One round takes the layers in the order a packet travels (host
    /// events, the pairing routine, L2CAP's frames to the links, each link's
    /// GATT events, ANCS and AMS, security and NotifBridge, the links'
    /// packets back down to L2CAP and the host), so an input's work, down
    /// to the packets it answers with, is done in one round. Another round
    /// runs only when a layer earlier in the order was given work: events
    /// the host made at once, actions of the pairing routine, or, with
    /// several links, one link's work for another. A round that would find
    /// every queue empty is not run (a notification took some forty passes
    /// over every layer when each round went on until one found nothing).
    func pump() {
        let now = clock.now
        var again = true
        while again {
            // Tested and taken, not polled (see `FIFO.removeFirst`).
            while host.hasEvents { handle(host.takeEvent(), now: now) }
            _ = performPairingActions(now: now)
            _ = routeL2CAPEvents(now: now)
            // Links come and go only with the host's events, handled above:
            // the rest of the round walks one list of them.
            let phones = links.values
            var linksMoved = false
            for link in phones where pumpLink(link, now: now) { linksMoved = true }
            // Without a link that carries it, what the receiver has left.
            drainNotifBridgeReceiver()
            // The model's events of this round (a link that went took its
            // notifications with it; the rest came out beside their cause).
            emitNotificationEvents()
            // LE credit-based channels: SDUs to their service, its answers
            // cut into K-frames.
            _ = pumpChannels()
            // The links' packets (and SMP's) leave: only the host takes them.
            _ = routeL2CAPEvents(now: now)
            // What the links' work gave the earlier layers: pairing replies
            // (and the reads they start), events the host made at once.
            again = performPairingActions(now: now) || host.hasEvents || (linksMoved && phones.count > 1)
        }
    }

    /// The pairing routine's actions; true when there were any.
    private func performPairingActions(now: Instant) -> Bool {
        var moved = false
        while let action = pairing.pollAction() {
            perform(action, now: now)
            moved = true
        }
        return moved
    }

    /// L2CAP's events: frames for a link's ATT bearer or security manager,
    /// and frames to send. True when a link was given a frame (a round of
    /// the links must follow); frames handed to the host move nothing else.
    private func routeL2CAPEvents(now: Instant) -> Bool {
        var fed = false
        while l2cap.hasEvents {
            switch l2cap.takeEvent() {
            case let .transmit(handle, frame):
                host.sendL2CAP(frame, on: handle)
            case let .att(handle, pdu):
                if let link = links[handle] {
                    link.bearer.receive(pdu)
                    link.attReceived = true
                    fed = true
                }
            case let .smp(handle, pdu):
                if let sm = links[handle]?.security {
                    sm.receive(pdu, now: now)
                    fed = true
                } else {
                    Log.info("smp", "SMP PDU on \(handle) before the phone was accepted; ignored")
                }
            case let .updateConnectionParameters(handle, parameters):
                host.send(.leConnectionUpdate(handle, parameters))
            }
        }
        while let answer = l2cap.pollParameterUpdateAnswer() {
            Log.debug("l2cap", "parameter update on \(answer.handle): \(answer.outcome)")
        }
        return fed
    }

    /// One link's layers: its GATT events (answers first, so requests they
    /// cause leave in the same round), ANCS and AMS, its security manager,
    /// NotifBridge, then what its bearer has for the phone; again only
    /// while a later layer gave an earlier one work (a request that
    /// completed at once, an action or output made on the way). It went on
    /// until a round found nothing, a second round per input that looked
    /// at every queue of the link to find them empty. True when anything
    /// moved.
    private func pumpLink(_ link: PhoneLink, now: Instant) -> Bool {
        var movedAny = false
        var again = true
        while again {
            var moved = routeBearerEvents(of: link, now: now)
            if let s = link.appleServices { moved = pumpAppleServices(s, now: now) || moved }
            if let sm = link.security {
                while let output = sm.pollOutput() {
                    perform(output, on: link, sm, now: now)
                    moved = true
                }
            }
            moved = takeGhostDropWrites(on: link, now: now) || moved
            let bridgeMoved = pumpNotifBridge(on: link, now: now)
            let bearer = link.bearer
            while let pdu = bearer.pollTransmit(now: now) {
                l2cap.send(pdu, on: link.handle, channel: .att)
            }
            movedAny = movedAny || moved || bridgeMoved
            again = bridgeMoved || hasWork(link)
        }
        return movedAny
    }

    /// Work left for the start of `pumpLink`'s round: the bearer's events,
    /// ANCS's and AMS's actions, the security manager's outputs.
    private func hasWork(_ link: PhoneLink) -> Bool {
        if link.bearer.hasEvents { return true }
        if let s = link.appleServices, s.ancs.hasActions || s.ams.hasActions { return true }
        return link.security?.hasOutput ?? false
    }

    /// Routes a link's GATT events to whoever asked. True when there were any.
    private func routeBearerEvents(of link: PhoneLink, now: Instant) -> Bool {
        var progressed = false
        let bearer = link.bearer
        while bearer.hasEvents {
            progressed = true
            guard let forCore = link.route(bearer.takeEvent(), now: now) else { continue }
            switch forCore {
            case .navigationNotifier(let reply):
                navigationNotifierReplied(reply, on: link.handle, now: now)
            case .phoneClock(let phoneClock):
                shown.phoneClock = phoneClock
            case .transactionTimeout:
                Log.error("gatt", "ATT transaction timeout on \(link.handle); disconnecting")
                host.disconnect(link.handle)
            case .clientStateChanged:
                storeClientState(of: link)
            }
        }
        return progressed
    }

    private func navigationNotifierReplied(_ reply: NavigationNotifierReply, on handle: ConnectionHandle, now: Instant) {
        switch reply {
        case .serverName(let r): pairing.serverNameRead(handle, r, now: now)
        case .pairedClientName(let r): pairing.pairedClientNameRead(handle, r, now: now)
        case .pairedClientNameWritten(let r): pairing.writeCompleted(handle, r, now: now)
        case .pairedClientNameSubscribed(let r): pairing.subscribeCompleted(handle, r, now: now)
        case .pairedClientNameChanged(let value): pairing.pairedClientNameChanged(handle, value, now: now)
        }
    }

    private func perform(_ action: PairingAction, now: Instant) {
        switch action {
        case .startScanning(let duty):
            scan = ScanState(wanted: duty)
            if host.isReady { startScan(duty) }
        case .stopScanning:
            scan.wanted = nil
            host.stopScanning()
        case .connect(let address):
            host.connect(to: address)
        case .cancelConnect:
            host.cancelConnect()
        case .disconnect(let handle):
            host.disconnect(handle)
        case .readServerName(let handle):
            links[handle]?.navigationNotifier.readServerName()
        case .readPairedClientName(let handle):
            links[handle]?.navigationNotifier.readPairedClientName()
        case let .writePairedClientName(handle, name):
            links[handle]?.navigationNotifier.writePairedClientName(name)
        case .subscribePairedClientName(let handle):
            links[handle]?.navigationNotifier.subscribePairedClientName()
        case .remember(let server):
            write(.rememberServer(server))
        case .forget(let server):
            Log.info("headunit", "forgetting \(server) and its bond")
            write(.forgetServer)
            deleteBond(server)
        case .stateChanged(let state):
            Log.info("headunit", "state: \(state.text)")
            emit(.state(state))
        case let .serverAccepted(handle, server):
            Log.info("headunit", "\(server) accepted on \(handle)")
            startSecurity(handle, server: server, now: now)
        }
    }

    func bond(for server: String) -> BondRecord? { kept.bond(for: server) }

    /// Every bond, by SERVER NAME.
    public var allBonds: [(server: String, bond: BondRecord)] { kept.allBonds }

    func saveBond(_ bond: BondRecord, for server: String) {
        for change in kept.save(bond, for: server) { write(change) }
        bondsChanged()
    }

    func deleteBond(_ server: String) {
        write(kept.delete(server))
        bondsChanged()
    }

    /// The pairing routine recognises bonded phones by their IRKs.
    /// Bonds made as central: the routine finds those phones; bonds made as
    /// peripheral (Settings): the advertising audience.
    private func bondsChanged() {
        pairing.bondsChanged(allBonds.filter { $0.bond.localRole == .initiator })
        accessoryBondsChanged()
    }

    /// Advertisers the current scan holds.
    var advertisersSeen: Int { scan.advertisers.entries.count }

    private func startScan(_ duty: ScanDuty) {
        switch duty {
        case .fast: host.startScanning(active: true, interval: 0x0060, window: 0x0030)
        case .slow: host.startScanning(active: true, interval: 0x0800, window: 0x0030)
        }
    }
}
