// The floor under the side by side: the least the head unit's system calls
// for one notification cost on this machine when nothing else runs between
// them. Per notification the simulated phone sends two groups of packets,
// each in one go: the Write Response and the Data Source answer to the
// AppIdentifier request; then those for the text request, with the previous
// notification's removal and the next one's arrival right behind them. A
// consumer reads each group in one wake-up (the head unit does: its wake-up
// does not preempt the phone: Platform/Scheduling.swift), so the
// least is two round trips: a requester over loopback TCP makes two ATT-sized
// requests, each time sleeping in poll over three descriptors and reading
// the answer in one piece, and appends one event-log line to a file, against
// a forked responder that answers after a pause, as the simulated phone does.
// (Until 2026-11-27 the second answer came in two pieces 100 µs apart, a
// third sleep and read: what the head unit did while each packet woke it.)
// Its CPU time per notification is what any consumer making those calls pays
// in the kernel; the rest of the head unit's figure is its own work.
//
//   swift build -c release --product syscall-floor
//   .build/release/syscall-floor [NOTIFICATIONS [LOG_FILE]]
// Prints one JSON line. Not part of the firmware. BENCH_PIN=1 in the
// environment runs the requester and the responder on one CPU, as the side
// by side then runs the consumer and the simulated phone (BENCH_PIN=2 puts
// them on CPUs 0 and 1: what a wake-up across cores costs).
import CLinux

let arguments = CommandLine.arguments
let count = arguments.count > 1 ? Int(arguments[1]) ?? 0 : 3000
let logPath = arguments.count > 2 ? arguments[2] : "out/syscall-floor.log"
guard count > 0 else {
    print("usage: syscall-floor [NOTIFICATIONS [LOG_FILE]]")
    exit(2)
}

func fail(_ what: String) -> Never {
    print("syscall-floor: \(what) failed (errno \(nn_errno()))")
    exit(1)
}

func cpuMicroseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1e6 + Double(t.tv_nsec) / 1e3
}

func noDelay(_ fd: Int32) {
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
}

// Loopback listener on a free port.
let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
var address = sockaddr_in()
address.sin_family = sa_family_t(AF_INET)
address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
var length = socklen_t(MemoryLayout<sockaddr_in>.size)
let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { a -> Bool in
        bind(listener, a, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, a, &length) == 0
    }
}
guard bound else { fail("listen") }

let pinning = getenv("BENCH_PIN").map { String(cString: $0) } ?? ""
let pinned = pinning == "1" || pinning == "2"
let child = fork()
if child == 0 {
    if pinned, nn_pin_to_cpu(pinning == "2" ? 0 : 1) != 0 { exit(1) }
    // The responder: the phone's side, asleep until asked, answering after
    // 150 µs, each answer in one piece.
    let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, length) == 0 }
    }
    guard connected else { exit(1) }
    noDelay(s)
    var buffer = [UInt8](repeating: 0, count: 4096)
    var k = 0
    while true {
        var p = pollfd(fd: s, events: Int16(POLLIN), revents: 0)
        poll(&p, 1, -1)
        if read(s, &buffer, buffer.count) <= 0 { exit(0) }
        usleep(150)
        write(s, buffer, k % 2 == 0 ? 45 : 160)
        k += 1
    }
}

if pinned, nn_pin_to_cpu(1) != 0 { fail("sched_setaffinity") }
let s = accept(listener, nil, nil)
guard s >= 0 else { fail("accept") }
noDelay(s)
_ = nn_fcntl_int(s, F_SETFL, O_NONBLOCK)
// The head unit's other two descriptors: its signals and the input folder's watch.
var mask = sigset_t()
sigemptyset(&mask)
sigaddset(&mask, SIGTERM)
sigprocmask(SIG_BLOCK, &mask, nil)
let signals = signalfd(-1, &mask, Int32(SFD_NONBLOCK))
let watch = inotify_init1(Int32(IN_NONBLOCK))
inotify_add_watch(watch, "/proc", UInt32(IN_CREATE))  // nothing is ever created there
let log = nn_open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0o644)
guard signals >= 0, watch >= 0, log >= 0 else { fail("signalfd, inotify or open") }

var buffer = [UInt8](repeating: 0x61, count: 4096)
var descriptors = [pollfd(fd: s, events: Int16(POLLIN), revents: 0), pollfd(fd: signals, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: watch, events: Int16(POLLIN), revents: 0)]

func request(_ bytes: Int, answer: Int) {
    write(s, buffer, bytes)
    var got = 0
    while got < answer {
        poll(&descriptors, 3, 5000)
        let n = read(s, &buffer, buffer.count)
        if n > 0 { got += n }
    }
}

let start = cpuMicroseconds()
for _ in 0..<count {
    request(27, answer: 45)   // the AppIdentifier
    request(18, answer: 160)  // the text
    write(log, buffer, 500)   // the event-log line
}
let used = cpuMicroseconds() - start
close(s)
var status: Int32 = 0
waitpid(child, &status, 0)
print("{\"notifications\": \(count), \"us_per_notification\": \(Double(Int(used / Double(count) * 10)) / 10), \"pinned\": \"\(pinned ? pinning : "no")\"}")
