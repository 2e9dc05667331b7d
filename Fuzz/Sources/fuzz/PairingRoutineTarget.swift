import BluetoothCore
import NavigationNotifier

/// The NavigationNotifier pairing routine against what phones nearby and on
/// the link may answer: advertisements, links coming and going, SERVER NAME
/// and PAIRED CLIENT NAME values (any bytes), write and subscribe results,
/// notifications, time and the user's requests.
///
/// Properties (one-to-one pairing): a remembered phone is only ever replaced
/// after it was forgotten; a phone is accepted only under the SERVER NAME it
/// gave on that link and only as the remembered one; only our CLIENT NAME or
/// UNPAIRED is ever written; only advertisers of the service are connected to.
enum PairingRoutineTarget {
    static let target = FuzzTarget(name: "pairing-routine", run: run, seeds: seeds)

    static let clientName = "HU-F0221A"
    static let phones = [BluetoothAddress("4A:11:22:33:44:55", kind: .random)!,
                         BluetoothAddress("5B:22:33:44:55:66", kind: .random)!,
                         BluetoothAddress("6C:33:44:55:66:77", kind: .random)!]
    static let links = [ConnectionHandle(0x0040), ConnectionHandle(0x0041)]
    static let serverNames = ["Anna-iPhone-7F3A", "Ben-iPhone-01C2"]
    static let pairedNames = [clientName, PairedClientName.unpaired, "HU-0BAD00"]

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let rememberedAtStart = input.bool() ? serverNames[0] : nil
        let routine = PairingRoutine(clientName: clientName, rememberedServer: rememberedAtStart)
        var now = Instant(milliseconds: 10_000)
        var remembered = rememberedAtStart
        var advertisingService: Set<BluetoothAddress> = []
        /// The SERVER NAME each link's phone gave when the routine asked for it.
        var serverNameOnLink: [ConnectionHandle: String] = [:]
        var askedForServerName: Set<ConnectionHandle> = []

        func result(_ names: [String]) -> RemoteResult {
            let pick = input.byte()
            switch pick & 0x07 {
            case 0, 1, 2: return .value(Array(names[Int(pick >> 3) % names.count].utf8))
            case 3: return .value(input.chunk())
            case 4: return .attError(input.byte())
            case 5: return .failed
            default: return .done
            }
        }

        routine.start(now: now)
        var operations = 0
        while !input.isAtEnd, operations < 300 {
            operations += 1
            let op = input.byte()
            let phone = phones[Int(op >> 4) % phones.count]
            let link = links[Int(op >> 7)]
            switch op & 0x0F {
            case 0:
                let flags = input.byte()
                if flags & 0x02 != 0 { advertisingService.insert(phone) }
                routine.advertiserSeen(phone, connectable: flags & 0x01 != 0, advertisesService: flags & 0x02 != 0, now: now)
            case 1: routine.connected(link, peer: phone, now: now)
            case 2: routine.connectionFailed(peer: phone, now: now)
            case 3:
                serverNameOnLink[link] = nil
                askedForServerName.remove(link)
                routine.disconnected(link, now: now)
            case 4:
                let answer = result(serverNames)
                // A stray answer is delivered too, but it is not what the phone said when asked.
                if askedForServerName.remove(link) != nil, case .value(let bytes) = answer {
                    serverNameOnLink[link] = String(decoding: bytes, as: UTF8.self)
                }
                routine.serverNameRead(link, answer, now: now)
            case 5: routine.pairedClientNameRead(link, result(pairedNames), now: now)
            case 6: routine.writeCompleted(link, result(pairedNames), now: now)
            case 7: routine.subscribeCompleted(link, result(pairedNames), now: now)
            case 8:
                let pick = input.byte()
                routine.pairedClientNameChanged(link, pick & 1 == 0 ? Array(pairedNames[Int(pick >> 1) % 3].utf8) : input.chunk(), now: now)
            case 9:
                now = now.adding(milliseconds: Int64(input.u16()) * 10)
                if let deadline = routine.nextDeadline, deadline <= now { routine.handleTimeout(now: now) }
            default:
                switch op % 6 {
                case 0: routine.start(now: now)
                case 1: routine.discover(now: now)
                case 2: routine.userDisconnect(now: now)
                case 3: routine.userUnpair(now: now)
                // A phone paired from Settings comes and goes.
                case 4: routine.standBy(now: now)
                default: routine.resume(now: now)
                }
            }
            while let action = routine.pollAction() {
                switch action {
                case .remember(let server):
                    invariant(remembered == nil || remembered == server, "\(server) took over from the remembered \(remembered ?? "")")
                    remembered = server
                case .forget(let server):
                    invariant(remembered == server, "forgot \(server), which was not remembered")
                    remembered = nil
                case .serverAccepted(let h, let server):
                    invariant(serverNameOnLink[h] == server, "accepted \(server), but the phone on \(h) said \(serverNameOnLink[h] ?? "nothing")")
                    invariant(remembered == server && routine.rememberedServer == server, "accepted \(server) without remembering it")
                case .writePairedClientName(_, let name):
                    invariant(name == clientName || name == PairedClientName.unpaired, "wrote \(name) as our name")
                case .readServerName(let h):
                    askedForServerName.insert(h)
                case .connect(let address):
                    invariant(advertisingService.contains(address), "connected to \(address), which never advertised the service")
                default:
                    break
                }
            }
            invariant(routine.rememberedServer == remembered, "the remembered server changed without remember or forget")
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        // op: bits 0-3 the call, 4-5 the phone, 7 the link; results: 0-2 a known name (bits 3+), 3 any bytes, 4 ATT error, 5 failed, 6-7 done.
        let pair: [UInt8] = [0x00, 0x03, 0x01, 0x04, 0x00, 0x05, 0x08, 0x06, 0x06, 0x07, 0x06]
        return [
            ("first-pairing", [0] + pair),
            ("reconnect-remembered", [1, 0x00, 0x03, 0x01, 0x04, 0x00, 0x05, 0x00, 0x07, 0x06]),
            ("other-phone-while-remembered", [1, 0x10, 0x03, 0x11, 0x04, 0x08, 0x05, 0x00]),
            ("paired-elsewhere", [0, 0x00, 0x03, 0x01, 0x04, 0x00, 0x05, 0x10]),
            ("unpaired-on-phone", [0] + pair + [0x08, 0x02]),
            ("user-unpair", [0] + pair + [0x0B, 0x06, 0x06, 0x03]),
            ("write-refused", [0, 0x00, 0x03, 0x01, 0x04, 0x00, 0x05, 0x08, 0x06, 0x04, 0x80]),
            ("odd-names", [0, 0x00, 0x03, 0x01, 0x04, 0x03, 0x03, 0xFF, 0x00, 0x41, 0x05, 0x03, 0x00]),
            ("timeouts", [0, 0x00, 0x03, 0x09, 0xF4, 0x01, 0x02, 0x09, 0x40, 0x0B]),
            ("second-link", [0] + pair + [0x81, 0x83]),
        ]
    }
}
