import DisplaySettings
import Graphics

/// A place frames go. Outputs copy the damaged parts of a logical canvas,
/// turned by their rotation, into the panel's memory.
public protocol DisplayOutput: AnyObject {
    /// Panel size in pixels, before rotation.
    var physicalSize: Size { get }
    var rotation: Rotation { get }
    /// A descriptor to watch for readability (DRM's vblank events), or nil.
    var pollDescriptor: Int32? { get }
    /// Shows the damaged parts of `canvas` (of logical size). Never blocks:
    /// while a page flip is pending the frame is queued and goes out when the
    /// flip completes.
    func present(_ canvas: Canvas, damage: Damage) throws(DisplayError)
    /// Call when poll(2) reports `pollDescriptor` readable.
    func handleReadable() throws(DisplayError)
    /// Releases the device (DRM: restores what was on screen before).
    func close()
}

extension DisplayOutput {
    /// The size to draw at: the panel size turned by the rotation.
    public var logicalSize: Size { rotation.logicalSize(physical: physicalSize) }
}

/// 32-bit framebuffers with red in the low byte.
enum XBGR8888: PixelPacking {
    @inline(__always) static func pack(_ v: UInt32) -> UInt32 {
        (v & 0xFF00_FF00) | ((v >> 16) & 0xFF) | ((v & 0xFF) << 16)
    }
}

/// Draws nothing; for running without a screen.
public final class NullOutput: DisplayOutput {
    public let physicalSize: Size
    public let rotation: Rotation
    public var pollDescriptor: Int32? { nil }
    public private(set) var frames = 0

    public init(size: Size, rotation: Rotation = .none) {
        physicalSize = size
        self.rotation = rotation
    }

    public func present(_ canvas: Canvas, damage: Damage) throws(DisplayError) { frames += 1 }
    public func handleReadable() throws(DisplayError) {}
    public func close() {}
}
