import ScreenValues
import BluetoothCore
import Console
import Drivers
import Graphics
import HCI
import Input
import Platform

/// What the head unit runs on, each a class-bound protocol so a test can
/// put fakes and a virtual clock in place of the Linux devices (which live
/// in Drivers, Platform and here). Every one is a `LoopDevice`: it lists the
/// descriptors to wait on and keeps what it read as values the head unit
/// polls after each wait.
struct HeadUnitDevices {
    /// The clock and the sleep (`EventLoop` on Linux).
    var waiting: any Waiting
    /// The controller (`HCIDriver`).
    var transport: any HCIPort
    /// The diagnostics console (`ConsoleDevice`), if asked for.
    var console: (any ConsolePort)?
    /// Touch and keys (`InputDevices`), if the head unit reads them.
    var input: (any InputPort)?
    /// The screen (`ScreenOutput`).
    var display: any HeadUnitDisplay
    /// The state directory (`StateFiles`).
    var files: any StateStorage
    /// Anything else the loop waits on (the hardware watchdog's keep-alive).
    var others: [any LoopDevice] = []
}

/// The controller's transport: H4 bytes in and out, nothing else.
protocol HCIPort: LoopDevice {
    /// How it is reached, for `status` (`hci0`, `tcp:...`).
    var name: String { get }
    /// Opens it now, or keeps trying (`.opened` comes when it does).
    func start(now: Instant)
    func pollEvent() -> HCITransportEvent?
    func send(_ packet: HCIPacket)
    /// Writes what `send` queued; once per wake-up.
    func flush(now: Instant)
    /// The links to end (HCI Disconnect) should the process crash; once per wake-up.
    func endOnCrash(_ links: [ConnectionHandle])
    func shutdown()
}

extension HCIPort {
    func endOnCrash(_ links: [ConnectionHandle]) {}
}

extension HCIDriver: HCIPort {
    var name: String { "\(spec)" }
}

/// The diagnostics shell: commands in, lines out.
protocol ConsolePort: LoopDevice {
    func say(_ text: String)
    /// The next command typed (help and bad lines are answered by the console itself).
    func pollCommand() -> ConsoleCommand?
}

/// Touch and keys.
protocol InputPort: LoopDevice {
    func start(now: Instant)
    func stop()
    func pollAction() -> InputAction?
}

extension InputDevices: InputPort {}

/// The screen the core's model is drawn on.
protocol HeadUnitDisplay: LoopDevice {
    /// False with no display at all (`none`): the model is never composed.
    var isDrawing: Bool { get }
    /// The logical size, once open.
    var size: Size? { get }
    /// The renderer's glyph cache, for `status`.
    var glyphCache: GlyphCache? { get }
    /// Draws `model` if it differs from what is on the glass.
    func show(_ model: ScreenModel, now: Instant)
    /// The action under a touch at a point of the panel, if any.
    func action(at physical: Point) -> ScreenAction?
    /// Writes what is on the glass to a PNG file; nil when done, else why not.
    func screenshot(_ path: String) -> String?
    func close()
}
