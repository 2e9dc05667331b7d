import BluetoothCore
import CLinux
import Platform

/// The diagnostics console's descriptors: a serial tty set up for a human
/// at a terminal (115200 8N1 by default), or stdin/stdout for `-`. A
/// `LoopDevice`: input read when the loop finds it ready waits in
/// `pollInput`; output is queued and written as the tty takes it, so a slow
/// line never blocks the loop.
///
/// The tty runs in canonical mode: the kernel echoes, handles backspace and
/// Ctrl-U, and hands over whole lines; CR from the terminal's Enter becomes
/// a newline, and newlines go out as CR LF. Signals from the keyboard are
/// off (Ctrl-C arrives as a byte; the line reader drops it). A tty that goes
/// away (a USB serial adapter unplugged) is reopened every few seconds.
///
///     let console = try SerialConsole(device: "/dev/ttyAMA0")
///     var lines = ConsoleLineReader()
///     ... after each wait: while let bytes = console.pollInput() { for input in lines.receive(bytes) { ... } }
///     console.write("passkey: 123456\n")
public final class SerialConsole: LoopDevice {
    public let device: String
    public let baud: Int
    /// Input ended for good (stdin reached its end, or its read failed).
    public private(set) var inputEnded = false

    private var inputFD: Int32 = -1
    private var outputFD: Int32 = -1
    private var reading = false
    private var reopenAt: Instant?
    private var input = FIFO<[UInt8]>()
    private var queue: [UInt8] = []
    private var droppedBytes = 0
    private var closed = false

    /// Output waiting beyond this is dropped (and the drop reported):
    /// diagnostics must not eat the head unit's memory.
    public static let maximumQueue = 64 * 1024
    static let reopenMilliseconds: Int64 = 5000
    static let readSize = 512

    /// `device` is a tty path, or "-" for stdin/stdout.
    public init(device: String, baud: Int = 115_200) throws(SystemError) {
        self.device = device
        self.baud = baud
        try open()
    }

    deinit { close() }

    public var isStandardIO: Bool { device == "-" }

    /// Queues text for the console; "\n" ends lines (the tty adds the CR).
    public func write(_ text: String) {
        guard !closed else { return }
        let bytes = Array(text.utf8)
        if queue.count + bytes.count > SerialConsole.maximumQueue {
            droppedBytes += bytes.count
            return
        }
        queue.append(contentsOf: bytes)
        flush()
    }

    /// Writes a line (adds the newline).
    public func say(_ line: String) { write(line + "\n") }

    public func close() {
        closed = true
        release()
        reopenAt = nil
    }

    /// Bytes read since the last call, in order.
    public func pollInput() -> [UInt8]? { input.popFirst() }

    // MARK: - LoopDevice

    public func addDescriptors(to set: inout PollSet) {
        if reading {
            // One descriptor for both ways on a tty: POLLOUT only while output waits.
            set.add(inputFD, writable: inputFD == outputFD && !queue.isEmpty)
        }
        if outputFD >= 0 && !queue.isEmpty && (outputFD != inputFD || !reading) { set.add(outputFD, writable: true) }
    }

    public func handle(_ readiness: Readiness, on fd: Int32, now: Instant) {
        guard fd >= 0 else { return }
        if fd == outputFD && (readiness.writable || readiness.failed) { flush() }
        if fd == inputFD && reading && (readiness.readable || readiness.failed) { readable(readiness, now: now) }
    }

    public var nextDeadline: Instant? { reopenAt }

    public func handleTimeout(now: Instant) {
        guard let at = reopenAt, at <= now else { return }
        reopenAt = nil
        guard !closed else { return }
        do throws(SystemError) {
            try open()
            Log.info("console", "\(device) open again")
        } catch {
            scheduleReopen(now: now)
        }
    }

    // MARK: - Opening

    private func open() throws(SystemError) {
        if isStandardIO {
            // stdin is left blocking: it usually shares its open file with
            // stdout and stderr, which other code writes to. Reading once
            // per readiness never blocks.
            inputFD = 0
            outputFD = 1
        } else {
            let fd = nn_open(device, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0)
            guard fd >= 0 else { throw SystemError("open console \(device)") }
            if isatty(fd) == 1 {
                do throws(SystemError) { try SerialConsole.configure(fd, baud: baud) } catch {
                    FileDescriptor.close(fd)
                    throw error
                }
            } else {
                Log.info("console", "\(device) is not a tty; used as it is")
            }
            inputFD = fd
            outputFD = fd
        }
        reading = true
        flush()
    }

    /// Sets up a tty for a person at a serial terminal: `baud` 8N1, no flow
    /// control, canonical input with echo and UTF-8 aware erase, CR to NL
    /// on input and NL to CR NL on output, no signals from the keyboard.
    public static func configure(_ fd: Int32, baud: Int = 115_200) throws(SystemError) {
        var tio = termios()
        guard tcgetattr(fd, &tio) == 0 else { throw SystemError("tcgetattr") }
        tio.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | IXON | IXOFF | INPCK)
        tio.c_iflag |= tcflag_t(ICRNL | IUTF8)
        tio.c_oflag |= tcflag_t(OPOST | ONLCR)
        tio.c_cflag &= ~(tcflag_t(CSIZE | PARENB | CSTOPB) | tcflag_t(CRTSCTS))
        tio.c_cflag |= tcflag_t(CS8 | CREAD | CLOCAL)
        tio.c_lflag |= tcflag_t(ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN)
        tio.c_lflag &= ~tcflag_t(ISIG | ECHONL | NOFLSH | TOSTOP)
        // glibc's cfsetspeed takes the rate as a number as well as a B
        // constant, and refuses rates the kernel has no constant for.
        guard baud > 0, cfsetspeed(&tio, speed_t(baud)) == 0 else {
            throw SystemError("console: unsupported baud rate \(baud)", code: EINVAL)
        }
        guard tcsetattr(fd, TCSANOW, &tio) == 0 else { throw SystemError("tcsetattr") }
    }

    // MARK: - Input

    private func readable(_ readiness: Readiness, now: Instant) {
        // One read per readiness: stdin may be blocking (see open()).
        let chunk: [UInt8]?
        do { chunk = try FileDescriptor.read(inputFD, max: SerialConsole.readSize) } catch {
            lost("\(error)", now: now)
            return
        }
        guard let bytes = chunk else {
            if readiness.failed && !readiness.readable { lost("hang-up", now: now) }
            return
        }
        if bytes.isEmpty {
            if isStandardIO {
                Log.info("console", "console input ended")
                reading = false
                inputEnded = true
            } else {
                lost("end of input", now: now)
            }
            return
        }
        input.append(bytes)
    }

    /// The tty failed (EIO after a hang-up, an unplugged adapter): close it
    /// and try again later; stdin is not reopened.
    private func lost(_ why: String, now: Instant) {
        release()
        if isStandardIO {
            Log.warning("console", "console input: \(why); console closed")
            inputEnded = true
            return
        }
        Log.warning("console", "\(device): \(why); reopening in \(SerialConsole.reopenMilliseconds / 1000) s")
        scheduleReopen(now: now)
    }

    private func scheduleReopen(now: Instant) {
        reopenAt = now.adding(milliseconds: SerialConsole.reopenMilliseconds)
    }

    private func release() {
        reading = false
        if !isStandardIO { FileDescriptor.close(inputFD) }
        inputFD = -1
        outputFD = -1
    }

    // MARK: - Output

    private func flush() {
        guard outputFD >= 0 else { return }
        while true {
            // Once what was queued is out, say what did not fit.
            if queue.isEmpty && droppedBytes > 0 {
                queue.append(contentsOf: "[\(droppedBytes) bytes of console output dropped]\n".utf8)
                droppedBytes = 0
            }
            if queue.isEmpty { break }
            let n: Int
            do { n = try FileDescriptor.write(outputFD, queue[...]) } catch {
                queue.removeAll()
                lost("\(error)", now: Clock.now())
                return
            }
            if n == 0 { break }
            queue.removeFirst(n)
        }
        // While output waits, `addDescriptors` asks for POLLOUT.
    }
}
