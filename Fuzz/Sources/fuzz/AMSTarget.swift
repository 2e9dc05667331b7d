import BluetoothCore
@testable import AMS

/// The AMS client registered for updates: Entity Update and Remote Command
/// notifications, answers to its Entity Attribute fetches and remote
/// commands, time, Service Changed and link loss. The now-playing report is
/// drawn after every step, as the screen does.
enum AMSTarget {
    static let target = FuzzTarget(name: "ams", run: run, seeds: seeds)

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let client = AMSClient(connection: ConnectionHandle(0x0040))
        var now = Instant(milliseconds: 10_000)
        /// A write or read the fuzzed input answers.
        var waiting: AMSAction?
        func drain() {
            while let action = client.pollAction() {
                switch action {
                case .discover: client.discoveryCompleted(.found(Set(AMSCharacteristic.allCases)), now: now)
                case .subscribe(_, let c): client.subscribeCompleted(c, .done, now: now)
                case .write(_, .entityUpdate, _): client.writeCompleted(.entityUpdate, .done, now: now)
                case .write, .read: waiting = action
                case .event: break
                }
            }
        }
        client.start(now: now)
        drain()
        invariant(client.isReady, "AMS did not register")
        var operations = 0
        while !input.isAtEnd, operations < 400 {
            operations += 1
            let op = input.byte()
            switch op & 0x07 {
            case 0, 1, 2, 3:
                let bytes = input.chunk()
                if let update = try? EntityUpdate(parsing: bytes) {
                    invariant(update.bytes == bytes, "an Entity Update does not encode back to its bytes")
                }
                client.entityUpdateReceived(bytes, now: now)
            case 4:
                client.remoteCommandReceived(input.chunk(), now: now)
            case 5:
                let result: RemoteOperationResult
                switch input.byte() & 0x03 {
                case 0: result = .value(input.chunk())
                case 1: result = .attError(input.byte())
                case 2: result = .failed
                default: result = .done
                }
                switch waiting {
                case .write(_, let c, _)?: client.writeCompleted(c, result, now: now)
                case .read(_, let c)?: client.readCompleted(c, result, now: now)
                default: client.readCompleted(.entityAttribute, result, now: now)
                }
                waiting = nil
            case 6:
                now = now.adding(milliseconds: Int64(input.u16()) * (Int64(input.byte()) + 1))
                if let deadline = client.nextDeadline, deadline <= now { client.handleTimeout(now: now) }
            default:
                switch input.byte() % 4 {
                case 0: client.send(RemoteCommandID(rawValue: input.byte() % 16) ?? .play, now: now)
                case 1: client.serviceChanged(now: now)
                case 2:
                    client.disconnected(now: now)
                    waiting = nil
                default: client.start(now: now)
                }
            }
            drain()
            let report = client.nowPlaying.report(at: now)
            if let elapsed = report.elapsedMilliseconds {
                invariant(elapsed >= 0, "negative elapsed time")
                if let duration = report.durationMilliseconds, duration > 0 {
                    invariant(elapsed <= duration, "elapsed time past the end of the track")
                }
            }
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        func update(_ entity: UInt8, _ attribute: UInt8, _ text: String, truncated: Bool = false) -> [UInt8] {
            var s = Script()
            s.byte(0)
            s.chunk([entity, attribute, truncated ? 1 : 0] + Array(text.utf8))
            return s.bytes
        }
        let track = update(2, 0, "Daft Punk") + update(2, 1, "Discovery") + update(2, 2, "One More Time") + update(2, 3, "320.357")
        return [
            ("track", track),
            ("playing", update(0, 0, "Music") + update(0, 1, "1,1.0,37.25") + [6, 0xE8, 0x03, 0x00] + track),
            ("paused-volume", update(0, 1, "0,0.0,12.5") + update(0, 2, "0.625")),
            ("rewinding", update(0, 1, "2,-2.0,100.0") + [6, 0x10, 0x27, 0x00]),
            ("fast-forward-absurd-rate", update(0, 1, "3,64000000000.0,0") + [6, 0x10, 0x27, 0x00]),
            ("queue", update(1, 0, "3") + update(1, 1, "12") + update(1, 2, "1") + update(1, 3, "2")),
            ("truncated-title", update(2, 2, "A very long title that did not f", truncated: true) + [5, 3] + [5, 0, 10] + Array("A very lon".utf8)),
            ("remote-commands", [4, 5, 0, 1, 2, 3, 4] + [7, 0, 3] + [5, 3]),
            ("reserved", update(3, 0, "x") + update(0, 9, "y") + [0, 2, 0, 0]),
            ("bad-numbers", update(0, 1, "1,1e3,x") + update(2, 3, "-.") + update(1, 0, "99999999999999999999")),
            ("service-changed", track + [7, 1] + [7, 2] + [7, 3]),
        ]
    }
}
