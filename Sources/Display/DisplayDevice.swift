import BluetoothCore
import DisplaySettings
import Graphics

/// The app's handle on the screen: opens the output named by the spec,
/// owns the logical canvas the screens are drawn into, presents its damage,
/// and keeps retrying while there is no display (a monitor plugged in later,
/// a card that appears late at boot). Time comes in from the caller.
///
///     let display = DisplayDevice(spec: try DisplaySpec.parse(arg), options: opts)
///     if display.open(now: t) { renderer.invalidate() }
///     ...
///     if let canvas = display.canvas {
///         renderer.render(model, on: canvas)
///         display.present(now: t)
///     }
///     // poll(2): watch display.pollDescriptor, wake by display.nextDeadline
///     display.handleReadable(now: t)       // when the descriptor is readable
///     if display.handleTimeout(now: t) { renderer.invalidate() }  // reopened
public final class DisplayDevice {
    public let spec: DisplaySpec
    public let options: DisplayOptions
    public private(set) var output: (any DisplayOutput)?
    /// Draw here; nil while no output is open. Replaced on every (re)open.
    public private(set) var canvas: Canvas?
    public private(set) var lastError: DisplayError?
    /// Frames handed to the output (the `n` of the `frame` event).
    public private(set) var framesPresented = 0
    private var retryAt: Instant?

    public init(spec: DisplaySpec, options: DisplayOptions = DisplayOptions()) {
        self.spec = spec
        self.options = options
    }

    deinit { close() }

    /// Tries to open the output. True when it opened: the canvas is new and
    /// blank, so everything must be drawn again. On failure the error is
    /// logged and kept in `lastError`; transient ones are retried.
    @discardableResult
    public func open(now: Instant) -> Bool {
        if output != nil { return false }
        do throws(DisplayError) {
            let out = try makeOutput()
            output = out
            canvas = Canvas(size: out.logicalSize)
            lastError = nil
            retryAt = nil
            return true
        } catch {
            if error != lastError {
                if error.isTransient {
                    Log.warning("display", error.description)
                } else {
                    Log.error("display", error.description)
                }
            }
            lastError = error
            retryAt = now.adding(milliseconds: options.retryMilliseconds)
            return false
        }
    }

    private func makeOutput() throws(DisplayError) -> any DisplayOutput {
        switch spec {
        case .drm(let device):
            return try DRMOutput(path: device, rotation: options.rotation, preferences: options.drm)
        case .fbdev(let device):
            return try FramebufferOutput(path: device, rotation: options.rotation)
        case .png(let dir):
            return try PNGOutput(directory: dir, size: options.virtualSize, rotation: options.rotation, keepFrames: options.keepFrames)
        case .none:
            return NullOutput(size: options.virtualSize, rotation: options.rotation)
        }
    }

    /// Descriptor to add to poll(2), if the output has one.
    public var pollDescriptor: Int32? { output?.pollDescriptor }

    /// When to call `handleTimeout` (a retry is due), if ever.
    public var nextDeadline: Instant? { output == nil ? retryAt : nil }

    /// Retries opening when due. True when the output just opened.
    @discardableResult
    public func handleTimeout(now: Instant) -> Bool {
        guard output == nil, let at = retryAt, now >= at else { return false }
        return open(now: now)
    }

    /// Shows what changed on the canvas since the last call.
    public func present(now: Instant) {
        guard let out = output, let c = canvas else { return }
        let damage = c.takeDamage()
        if damage.isEmpty { return }
        do throws(DisplayError) {
            try out.present(c, damage: damage)
            framesPresented += 1
        } catch {
            fail(error, now: now)
        }
    }

    public func handleReadable(now: Instant) {
        guard let out = output else { return }
        do throws(DisplayError) {
            try out.handleReadable()
        } catch {
            fail(error, now: now)
        }
    }

    /// An output that stops working (display unplugged, device gone) is
    /// closed and reopened later.
    private func fail(_ error: DisplayError, now: Instant) {
        Log.error("display", "\(error.description); reopening")
        lastError = error
        close()
        retryAt = now.adding(milliseconds: options.retryMilliseconds)
    }

    public func close() {
        output?.close()
        output = nil
        canvas = nil
    }
}
