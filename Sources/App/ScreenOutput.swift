import BluetoothCore
import CLinux
import Display
import DisplaySettings
import Graphics
import Platform
import Screens
import ScreenValues

/// The head unit's display: renders a `ScreenModel` whenever it differs from
/// what is on the glass, presents only the damage, reports each frame in
/// the event log, and reopens an output that failed or is not there yet
/// (its descriptor and its retry deadline are a `LoopDevice`'s).
final class ScreenOutput: HeadUnitDisplay {
    let device: DisplayDevice
    private let renderer: ScreenRenderer?
    private let events: EventLog
    private var shown: ScreenModel?
    /// The model shown last (or to show next).
    private(set) var model = ScreenModel()

    init(spec: DisplaySpec, options: DisplayOptions, fonts: Fonts?, events: EventLog, now: Instant) {
        device = DisplayDevice(spec: spec, options: options)
        renderer = fonts.map { ScreenRenderer(fonts: $0) }
        self.events = events
        if renderer == nil && spec != .none {
            Log.error("display", "no fonts: nothing will be drawn")
        }
        open(now: now)
    }

    func show(_ model: ScreenModel, now: Instant) {
        self.model = model
        refresh(now: now)
    }

    // MARK: - LoopDevice

    func addDescriptors(to set: inout PollSet) {
        if let fd = device.pollDescriptor { set.add(fd) }
    }

    func handle(_ readiness: Readiness, on fd: Int32, now: Instant) {
        guard fd == device.pollDescriptor else { return }
        device.handleReadable(now: now)
    }

    var nextDeadline: Instant? { device.nextDeadline }

    func handleTimeout(now: Instant) {
        guard let at = device.nextDeadline, at <= now else { return }
        open(now: now)
    }

    var size: Size? { device.canvas?.size }

    /// False with no display at all (`none`): the screen model is never drawn.
    var isDrawing: Bool { renderer != nil }
    /// The renderer's glyph cache (nil without fonts).
    var glyphCache: GlyphCache? { renderer?.fonts.cache }

    /// Draws the model if it changed, and presents the result.
    private func refresh(now: Instant) {
        guard let renderer, let canvas = device.canvas else { return }
        guard shown != model else { return }
        let start = Clock.monotonicMicroseconds()
        _ = renderer.render(model, on: canvas)
        let micros = Clock.monotonicMicroseconds() - start
        let before = device.framesPresented
        device.present(now: now)
        shown = model
        guard device.framesPresented > before else { return }
        events.emit("frame") { j in
            j.field("n", device.framesPresented)
            j.field("render_ms", milliunits: micros)
        }
    }

    /// The action under a touch at a point of the panel, if any.
    func action(at physical: Point) -> ScreenAction? {
        guard let size = device.canvas?.size else { return nil }
        let logical = device.options.rotation.logicalPoint(physical: physical, logical: size)
        return ScreenLayout.hitTest(logical, model: model, size: size)
    }

    /// Writes what is on the glass to a PNG file; nil when done, else why not.
    func screenshot(_ path: String) -> String? {
        guard let canvas = device.canvas else { return "no display open" }
        let error = canvas.pixels.withUnsafeBufferPointer {
            PNGFile.write(path: path, width: canvas.width, height: canvas.height, stride: canvas.width, pixels: $0)
        }
        return error
    }

    func close() {
        device.close()
    }

    /// An output that failed closed itself and set its retry deadline.
    private func open(now: Instant) {
        if device.open(now: now) {
            renderer?.invalidate()
            shown = nil
            Log.info("display", "\(device.spec) open, \(device.canvas.map { "\($0.size.width)x\($0.size.height)" } ?? "?")")
            refresh(now: now)
        }
    }
}

/// Where the fonts are: the image installs them under /usr/share/headunit;
/// a development build finds the project's fonts/ above the executable, and
/// the script fonts in Debian's font packages (Graphics' StandardFonts).
enum FontLocator {
    static let regular = "DejaVuSans.ttf"
    static let bold = "DejaVuSans-Bold.ttf"

    static func directory(configured: String?) -> String? {
        var candidates: [String] = []
        if let c = configured { candidates.append(c) }
        candidates.append("/usr/share/headunit/fonts")
        var dir = executableDirectory()
        while !dir.isEmpty && dir != "/" {
            candidates.append(dir + "/fonts")
            guard let slash = dir.lastIndex(of: "/") else { break }
            dir = String(dir[..<slash])
        }
        return candidates.first { access($0 + "/" + regular, R_OK) == 0 }
    }

    static func load(configured: String?, fallbacks: [String]) -> Fonts? {
        guard let dir = directory(configured: configured) else {
            Log.error("display", "no fonts found (looked for \(regular) under /usr/share/headunit/fonts and fonts/)")
            return nil
        }
        // The script fonts (Arabic, Hebrew, Indic, Thai, CJK) beside the
        // family, or where their Debian packages put them.
        let scripts = StandardFonts.locate(directory: dir) { access($0, R_OK) == 0 }
        for e in scripts.missing {
            Log.warning("display", "no \(e.regular) in \(dir) or \(e.packageDirectory) (\(e.package)): "
                + "\(e.scripts.joined(separator: ", ")) text shows as boxes")
        }
        do {
            return try Fonts(regular: dir + "/" + regular, bold: dir + "/" + bold, fallbacks: fallbacks,
                             scriptFonts: scripts.fonts)
        } catch {
            Log.error("display", "fonts in \(dir): \(error)")
            return nil
        }
    }

    private static func executableDirectory() -> String {
        var buffer = [Int8](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return "" }
        let path = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }
}
