// Pipeline benchmark: the cost of one ANCS notification through the head
// unit's receive path, from H4 bytes in to the notification model updated.
//
// A recording pass runs the stack against a scripted controller and phone
// (ScriptedPhone) and keeps every H4 packet the host received. Each timed
// pass then feeds exactly those bytes to a fresh stack: bring-up, the
// encrypted link, ANCS subscriptions and one warm-up notification are set
// up first, then N notifications are measured. Per notification the phone
// sends a Notification Source Added, answers the AppIdentifier request and
// the text request (Title, Subtitle, Message, Date) on the Data Source, and
// removes the previous notification, as a navigation app does.
//
//   swift build -c release --product pipeline-bench
//   .build/release/pipeline-bench [--notifications N] [--passes P]
// Instructions: scripts/bench runs it under callgrind with
// --toggle-collect='*measuredReplay*' for two values of N.
import Glibc
import HCI

enum Step {
    case startHost
    case startServices
    case packet([UInt8])
}

struct Recording {
    var steps: [Step] = []
    var measuredFrom = 0
    var notifications = 0
    var inboundBytes = 0
    var outboundPackets = 0
    var shown = 0
}

final class PhoneBox {
    var phone = ScriptedPhone()
    var queue: [[UInt8]] = []
}

/// Runs the stack against the scripted phone and keeps what the host received.
func record(notifications n: Int) -> Recording {
    var rec = Recording()
    let stack = Stack()
    let box = PhoneBox()
    var outbound = 0
    stack.onTransmit = { packet in
        outbound += 1
        box.queue += box.phone.answer(packet)
    }
    func drain() {
        while !box.queue.isEmpty {
            let chunk = box.queue.removeFirst()
            rec.steps.append(.packet(chunk))
            stack.receive(chunk)
        }
    }
    func feed(_ chunks: [[UInt8]]) {
        box.queue += chunks
        drain()
    }
    rec.steps.append(.startHost)
    stack.host.start(now: stack.now)
    stack.pump()
    drain()
    feed(box.phone.linkUp())
    rec.steps.append(.startServices)
    stack.bearer.exchangeMTU()
    stack.ancs.start(now: stack.now)
    stack.pump()
    drain()
    func post(_ uid: UInt32) {
        box.phone.notifications[uid] = ("com.google.Maps", "In \(uid % 50 * 10 + 100) m", "Turn left onto Market Street toward Union Square")
        feed(box.phone.notificationSource(event: 0, uid: uid))
    }
    post(1)  // warm-up: the app's display name is asked for once
    rec.measuredFrom = rec.steps.count
    let bytesBefore = rec.steps.reduce(0) { if case .packet(let p) = $1 { return $0 + p.count } else { return $0 } }
    for i in 0..<n {
        let uid = UInt32(i + 2)
        post(uid)
        box.phone.notifications[uid - 1] = nil
        feed(box.phone.notificationSource(event: 2, uid: uid - 1))
    }
    let bytesAll = rec.steps.reduce(0) { if case .packet(let p) = $1 { return $0 + p.count } else { return $0 } }
    rec.inboundBytes = bytesAll - bytesBefore
    rec.notifications = n
    rec.outboundPackets = outbound
    rec.shown = stack.shown
    return rec
}

func run(_ step: Step, on stack: Stack) {
    switch step {
    case .startHost:
        stack.host.start(now: stack.now)
        stack.pump()
    case .startServices:
        stack.bearer.exchangeMTU()
        stack.ancs.start(now: stack.now)
        stack.pump()
    case .packet(let bytes):
        stack.receive(bytes)
    }
}

/// The measured part; its name is what callgrind's --toggle-collect matches.
@inline(never)
func measuredReplay(_ steps: ArraySlice<Step>, on stack: Stack) {
    for step in steps { run(step, on: stack) }
}

func nanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

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
    let stack = Stack()
    var outbound = 0
    stack.onTransmit = { _ in outbound += 1 }
    for step in rec.steps[..<rec.measuredFrom] { run(step, on: stack) }
    let shownBefore = stack.shown
    let t0 = nanoseconds()
    measuredReplay(rec.steps[rec.measuredFrom...], on: stack)
    let t1 = nanoseconds()
    // The replay must be the recorded conversation: same answers, same model.
    guard stack.shown - shownBefore == n, outbound == rec.outboundPackets else {
        print("pipeline-bench: replay diverged (shown \(stack.shown - shownBefore) of \(n), \(outbound) packets out, recorded \(rec.outboundPackets))")
        exit(1)
    }
    times.append(Double(t1 - t0) / Double(n))
}
times.sort()
let median = times.isEmpty ? 0 : times[times.count / 2]
let perNotification = rec.inboundBytes / max(n, 1)
let steps = rec.steps.count - rec.measuredFrom
print("{\"notifications\": \(n), \"passes\": \(passes), \"ns_per_notification\": \(Int(median)), "
      + "\"ns_min\": \(Int(times.first ?? 0)), \"h4_packets_in\": \(steps), \"h4_bytes_in_per_notification\": \(perNotification)}")
