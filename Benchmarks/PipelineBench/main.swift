// Pipeline benchmark: the cost of one ANCS notification through the head
// unit's core, from H4 bytes in to the notification model updated.
//
// A recording pass runs the core against the scripted controller and phone
// (Tests/Support/ScriptedPeers, in virtual time) and keeps every input the
// core was given. Each timed pass then feeds exactly those inputs to a
// fresh core: bring-up, the connection to the remembered phone, its
// encryption with the stored bond, the name check, ANCS subscriptions and
// one warm-up notification are set up first, then N notifications are
// measured. Per notification the phone sends a Notification Source Added,
// answers the AppIdentifier request and the text request (Title,
// Subtitle, Message, Date) on the Data Source, and removes the previous
// notification, as a navigation app does.
//
//   swift build -c release --product pipeline-bench
//   .build/release/pipeline-bench [--notifications N] [--passes P]
// Instructions: scripts/bench runs it under callgrind with
// --toggle-collect='*measuredReplay*' for two values of N.
import BluetoothCore
import Glibc
import HeadUnitCore
import ScriptedPeers
import SMP

let serverName = "Anna-iPhone-7F3A"
let clientName = "HU-BENCH"
let phoneAddress = CoreRig.defaultPhoneAddress
let start = Instant(milliseconds: 1_000)

/// A head unit that knows the phone: remembered, bonded.
func stored() -> StoredState {
    let bond = BondRecord(peerIdentityAddress: phoneAddress, peerIRK: nil,
                          longTermKey: LongTermKey(bytes: [UInt8](repeating: 0x42, count: 16))!,
                          keySize: 16, authenticated: true, secureConnections: true, localIRK: nil)
    return StoredState(clientName: clientName, rememberedServer: serverName, bonds: [serverName: bond])
}

func makeCore() -> HeadUnitCore { HeadUnitCore(settings: CoreSettings(), stored: stored(), now: start) }

struct Recording {
    var inputs: [CoreInput] = []
    var measuredFrom = 0
    var notifications = 0
    var inboundBytes = 0
    var outboundPackets = 0
    var shown = 0
}

func shownCount(_ events: [CoreEvent]) -> Int {
    events.filter { if case .notification(let n) = $0 { return n.action == .shown || n.action == .updated } else { return false } }.count
}

func inboundBytes(_ inputs: ArraySlice<CoreInput>) -> Int {
    inputs.reduce(0) { if case .bytes(let b, _) = $1 { return $0 + b.count } else { return $0 } }
}

/// Runs the core against the scripted phone and keeps what it was given.
func record(notifications n: Int) -> Recording {
    var rec = Recording()
    let phone = ScriptedPhone(serverName: serverName, pairedClientName: clientName, publishesANCSAfterBonding: false)
    phone.maximumMTU = 247
    let rig = CoreRig(stored: stored(), phone: phone, now: start)
    rig.onInput = { rec.inputs.append($0) }
    rig.start()
    func post(_ uid: UInt32) {
        rig.phoneSends(phone.post(uid, .init(app: "com.google.Maps", title: "In \(uid % 50 * 10 + 100) m",
                                             message: "Turn left onto Market Street toward Union Square")))
    }
    post(1)  // warm-up: the app's display name is asked for once
    rec.measuredFrom = rec.inputs.count
    let outboundBefore = rig.transmitted
    for i in 0..<n {
        let uid = UInt32(i + 2)
        post(uid)
        rig.phoneSends(phone.remove(uid - 1))
    }
    rec.inboundBytes = inboundBytes(rec.inputs[rec.measuredFrom...])
    rec.notifications = n
    rec.outboundPackets = rig.transmitted - outboundBefore
    rec.shown = shownCount(rig.events)
    return rec
}

/// Feeds inputs to the core as the shell does, taking what it sends out.
final class Replay {
    let core = makeCore()
    var outbound = 0
    var shown = 0

    func run(_ input: CoreInput) {
        input.apply(to: core)
        while core.pollTransmit(now: input.now) != nil { outbound += 1 }
        // As the shell carries them out (`HeadUnit.carryOut`).
        while core.hasEvents {
            if case .notification(let n) = core.takeEvent(), n.action == .shown || n.action == .updated { shown += 1 }
        }
        while core.hasStateWrites { _ = core.takeStateWrite() }
        while core.pollConsoleLine() != nil {}
    }
}

/// The measured part; its name is what callgrind's --toggle-collect matches.
@inline(never)
func measuredReplay(_ inputs: ArraySlice<CoreInput>, on replay: Replay) {
    for input in inputs { replay.run(input) }
}

func nanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

Log.level = .error
var n = 2000
var passes = 5
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--notifications": n = Int(args.popFirst() ?? "") ?? n
    case "--passes": passes = Int(args.popFirst() ?? "") ?? passes
    default:
        print("usage: pipeline-bench [--notifications N] [--passes P]")
        exit(2)
    }
}

let rec = record(notifications: n)
guard rec.shown == n + 1 else {
    print("pipeline-bench: the recording showed \(rec.shown) notifications, expected \(n + 1)")
    exit(1)
}
var times: [Double] = []
for _ in 0..<passes {
    let replay = Replay()
    for input in rec.inputs[..<rec.measuredFrom] { replay.run(input) }
    let shownBefore = replay.shown
    let outboundBefore = replay.outbound
    let t0 = nanoseconds()
    measuredReplay(rec.inputs[rec.measuredFrom...], on: replay)
    let t1 = nanoseconds()
    // The replay must be the recorded conversation: same answers, same model.
    guard replay.shown - shownBefore == n, replay.outbound - outboundBefore == rec.outboundPackets else {
        print("pipeline-bench: replay diverged (shown \(replay.shown - shownBefore) of \(n), "
              + "\(replay.outbound - outboundBefore) packets out, recorded \(rec.outboundPackets))")
        exit(1)
    }
    times.append(Double(t1 - t0) / Double(n))
}
times.sort()
let median = times.isEmpty ? 0 : times[times.count / 2]
let perNotification = rec.inboundBytes / max(n, 1)
let steps = rec.inputs.count - rec.measuredFrom
print("{\"notifications\": \(n), \"passes\": \(passes), \"ns_per_notification\": \(Int(median)), "
      + "\"ns_min\": \(Int(times.first ?? 0)), \"h4_packets_in\": \(steps), \"h4_bytes_in_per_notification\": \(perNotification)}")
