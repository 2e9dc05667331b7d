import BluetoothCore
import CLinux
import Platform

/// The board's hardware watchdog through the Linux watchdog API
/// (`/dev/watchdogN`). Opening the device starts it; it reboots the board
/// unless it is petted (`WDIOC_KEEPALIVE`) within its timeout.
///
/// Petting comes from its deadline in the firmware's event loop (a
/// `LoopDevice` with no descriptor), so it stops as soon as the loop stops turning (a handler that hangs, a stopped process)
/// and the board is reset. The device is never closed with the magic `V`
/// either: when the firmware crashes or is killed the watchdog stays armed,
/// and the supervisor has until the timeout to start it again (the new
/// process opens the device and pets it). See docs/IMAGE.md.
public final class Watchdog: LoopDevice {
    /// 15 s: long enough for any single turn of the loop (a full-screen
    /// redraw, a state file sync), short enough that a hung head unit is back
    /// on the road within half a minute.
    public static let defaultTimeoutSeconds = 15

    public let device: String
    /// The timeout the driver accepted (it may round or clamp the request),
    /// or nil when the driver does not say.
    public let timeoutSeconds: Int?
    /// Keep-alives sent so far.
    public private(set) var keepalives = 0
    private let fd: Int32
    private var petAt: Instant?
    private var keepaliveFailed = false

    /// Opens `device` and asks for `timeoutSeconds`. Throws when the device
    /// cannot be opened or is not a watchdog.
    public init(device: String, timeoutSeconds requested: Int = Watchdog.defaultTimeoutSeconds) throws(SystemError) {
        self.device = device
        let fd = nn_open(device, O_WRONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw SystemError("open \(device)") }
        // The first keep-alive tells a watchdog from any other file (ENOTTY).
        guard nn_ioctl_int(fd, nn_wdioc_keepalive(), 0) == 0 else {
            let error = SystemError("\(device): WDIOC_KEEPALIVE")
            FileDescriptor.close(fd)
            throw error
        }
        self.fd = fd
        var timeout = Int32(clamping: requested)
        if nn_ioctl_ptr(fd, nn_wdioc_settimeout(), &timeout) != 0 {
            // A driver with a fixed timeout: keep its own.
            Log.warning("watchdog", "\(SystemError("\(device): WDIOC_SETTIMEOUT \(requested) s")); keeping the driver's timeout")
        }
        var actual: Int32 = 0
        timeoutSeconds = nn_ioctl_ptr(fd, nn_wdioc_gettimeout(), &actual) == 0 && actual > 0 ? Int(actual) : nil
        keepalives = 1
    }

    deinit {
        // Closing without the magic character leaves the watchdog running:
        // the next firmware process has to pet it in time.
        FileDescriptor.close(fd)
    }

    /// How often the loop pets: a third of the timeout, so two missed turns
    /// of the timer still do not reset the board. Every second when the
    /// driver does not report its timeout.
    public var intervalMilliseconds: Int64 {
        guard let t = timeoutSeconds else { return 1000 }
        return max(1000, Int64(t) * 1000 / 3)
    }

    /// `/dev/watchdog0 15 s`, for the console's `status`.
    public var description: String {
        "\(device) \(timeoutSeconds.map { "\($0) s" } ?? "(timeout unknown)")"
    }

    /// Pets the watchdog now, and again at each `nextDeadline` for as long
    /// as the loop keeps its deadlines.
    public func start(now: Instant) {
        keepAlive()
        petAt = now.adding(milliseconds: intervalMilliseconds)
    }

    public func addDescriptors(to set: inout PollSet) {}
    public func handle(_ readiness: Readiness, on fd: Int32, now: Instant) {}
    public var nextDeadline: Instant? { petAt }

    public func handleTimeout(now: Instant) {
        guard let at = petAt, at <= now else { return }
        keepAlive()
        petAt = now.adding(milliseconds: intervalMilliseconds)
    }

    /// One `WDIOC_KEEPALIVE`. A failure is logged once; if petting keeps
    /// failing the board resets, which is what it should do.
    public func keepAlive() {
        if nn_ioctl_int(fd, nn_wdioc_keepalive(), 0) == 0 {
            keepalives += 1
            keepaliveFailed = false
        } else if !keepaliveFailed {
            keepaliveFailed = true
            Log.error("watchdog", "\(SystemError("\(device): WDIOC_KEEPALIVE")); the board will reset")
        }
    }
}
