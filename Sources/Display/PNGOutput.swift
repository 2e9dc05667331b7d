import BluetoothCore
import CLinux
import DisplaySettings
import Graphics

/// Writes every presented frame to `DIR/frame-NNNNNN.png` and makes
/// `DIR/latest.png` point at it. Both appear atomically (written under a
/// temporary name, then renamed), so a reader never sees half a file.
public final class PNGOutput: DisplayOutput {
    public let directory: String
    public let physicalSize: Size
    public let rotation: Rotation
    public var pollDescriptor: Int32? { nil }
    /// Numbered frames kept on disk; older ones are deleted (0 keeps all).
    public let keepFrames: Int
    public private(set) var frameNumber = 0
    /// The panel's pixels, kept only for a turned panel. Unturned, the canvas
    /// is the panel: frames are encoded straight from it (one 4-byte-per-pixel
    /// copy of the screen less).
    private var panel: [UInt32]

    public init(directory: String, size: Size, rotation: Rotation = .none, keepFrames: Int = 1000) throws(DisplayError) {
        guard size.width > 0, size.height > 0 else { throw .badSpec("png output needs a positive size") }
        self.directory = directory
        physicalSize = size
        self.rotation = rotation
        self.keepFrames = max(0, keepFrames)
        panel = rotation == .none ? [] : [UInt32](repeating: 0xFF00_0000, count: size.width * size.height)
        try PNGOutput.makeDirectories(directory)
        var st = stat()
        guard stat(directory, &st) == 0, (st.st_mode & UInt32(S_IFMT)) == UInt32(S_IFDIR) else {
            throw .badSpec("png:\(directory): not a directory")
        }
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String) throws(DisplayError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if mkdir(prefix, 0o755) != 0 && nn_errno() != EEXIST {
                throw .system(what: "mkdir \(prefix)", errno: nn_errno())
            }
            prefix += "/"
        }
    }

    public static func frameName(_ n: Int) -> String {
        let digits = "\(n)"
        return "frame-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".png"
    }

    public func present(_ canvas: Canvas, damage: Damage) throws(DisplayError) {
        let w = physicalSize.width, h = physicalSize.height
        guard canvas.size == logicalSize else {
            throw .png("canvas \(canvas.width)x\(canvas.height) does not fit the \(w)x\(h) panel")
        }
        frameNumber += 1
        let frame = directory + "/" + PNGOutput.frameName(frameNumber)
        let tmp = directory + "/.frame.tmp"
        let err: String?
        if rotation == .none {
            err = canvas.pixels.withUnsafeBufferPointer {
                PNGFile.write(path: tmp, width: w, height: h, stride: w, pixels: $0)
            }
        } else {
            panel.withUnsafeMutableBufferPointer { buf in
                guard let base = buf.baseAddress else { return }
                for r in damage.rects { canvas.present(r, rotation: rotation, to: base, dstStride: w, format: XRGB8888.self) }
            }
            err = panel.withUnsafeBufferPointer {
                PNGFile.write(path: tmp, width: w, height: h, stride: w, pixels: $0)
            }
        }
        if let e = err {
            unlink(tmp)
            throw .png("\(frame): \(e)")
        }
        guard rename(tmp, frame) == 0 else { throw .system(what: "rename \(frame)", errno: nn_errno()) }
        // latest.png: a second name for the same file, swapped in atomically.
        let latestTmp = directory + "/.latest.tmp"
        unlink(latestTmp)
        guard link(frame, latestTmp) == 0, rename(latestTmp, directory + "/latest.png") == 0 else {
            throw .system(what: "update \(directory)/latest.png", errno: nn_errno())
        }
        if keepFrames > 0 && frameNumber > keepFrames {
            unlink(directory + "/" + PNGOutput.frameName(frameNumber - keepFrames))
        }
    }

    public func handleReadable() throws(DisplayError) {}
    public func close() {}
}
