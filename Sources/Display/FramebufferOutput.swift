import BluetoothCore
import CLinux
import DisplaySettings
import Graphics

/// The Linux framebuffer (`/dev/fbN`): mapped memory, written directly.
/// Honours the line stride and 16 (RGB565) or 32 bpp (XRGB or XBGR).
public final class FramebufferOutput: DisplayOutput {
    enum Format { case xrgb8888, xbgr8888, rgb565 }

    public let path: String
    public let physicalSize: Size
    public let rotation: Rotation
    public var pollDescriptor: Int32? { nil }
    let format: Format
    /// Bytes per line.
    let stride: Int
    private var fd: Int32
    private let map: UnsafeMutableRawPointer
    private let mapLength: Int
    /// First visible pixel (the panning offset).
    private let origin: UnsafeMutableRawPointer

    public init(path: String, rotation: Rotation = .none) throws(DisplayError) {
        let fd = nn_open(path, O_RDWR | O_CLOEXEC, 0)
        guard fd >= 0 else { throw DisplayError.opening(path, errno: nn_errno()) }
        var v = fb_var_screeninfo()
        var f = fb_fix_screeninfo()
        guard nn_ioctl_ptr(fd, UInt(FBIOGET_VSCREENINFO), &v) == 0, nn_ioctl_ptr(fd, UInt(FBIOGET_FSCREENINFO), &f) == 0 else {
            let e = nn_errno()
            _ = CLinux.close(fd)
            throw .notADisplay(path: path, detail: "framebuffer ioctl: \(errnoText(e))")
        }
        let bpp = Int(v.bits_per_pixel)
        let format: Format
        if bpp == 32 && v.red.offset == 16 && v.blue.offset == 0 {
            format = .xrgb8888
        } else if bpp == 32 && v.red.offset == 0 && v.blue.offset == 16 {
            format = .xbgr8888
        } else if bpp == 16 && v.red.offset == 11 && v.green.length == 6 {
            format = .rgb565
        } else {
            _ = CLinux.close(fd)
            throw .unsupportedFormat("\(path): \(bpp) bpp with red at bit \(v.red.offset)")
        }
        let bytesPerPixel = bpp / 8
        let stride = Int(f.line_length)
        let width = Int(v.xres), height = Int(v.yres)
        let length = Int(f.smem_len)
        let offset = Int(v.yoffset) * stride + Int(v.xoffset) * bytesPerPixel
        guard width > 0, height > 0, stride % bytesPerPixel == 0, stride >= width * bytesPerPixel,
              offset + (height - 1) * stride + width * bytesPerPixel <= length else {
            _ = CLinux.close(fd)
            throw .notADisplay(path: path, detail: "inconsistent geometry \(width)x\(height), stride \(stride), memory \(length)")
        }
        guard let map = nn_mmap_shared(fd, length, 0) else {
            let e = nn_errno()
            _ = CLinux.close(fd)
            throw .system(what: "mmap \(path)", errno: e)
        }
        self.path = path
        self.fd = fd
        self.format = format
        self.stride = stride
        self.map = map
        mapLength = length
        origin = map + offset
        physicalSize = Size(width: width, height: height)
        self.rotation = rotation
        Log.info("display", "\(path): \(width)x\(height), \(bpp) bpp, stride \(stride)")
    }

    deinit { close() }

    public func present(_ canvas: Canvas, damage: Damage) throws(DisplayError) {
        guard fd >= 0 else { return }
        for r in damage.rects {
            switch format {
            case .xrgb8888:
                canvas.present(r, rotation: rotation, to: origin.assumingMemoryBound(to: UInt32.self), dstStride: stride / 4, format: XRGB8888.self)
            case .xbgr8888:
                canvas.present(r, rotation: rotation, to: origin.assumingMemoryBound(to: UInt32.self), dstStride: stride / 4, format: XBGR8888.self)
            case .rgb565:
                canvas.present(r, rotation: rotation, to: origin.assumingMemoryBound(to: UInt16.self), dstStride: stride / 2, format: RGB565.self)
            }
        }
    }

    public func handleReadable() throws(DisplayError) {}

    public func close() {
        guard fd >= 0 else { return }
        munmap(map, mapLength)
        _ = CLinux.close(fd)
        fd = -1
    }
}
