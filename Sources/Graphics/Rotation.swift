import DisplaySettings

/// What a `Rotation` (a configuration value) does to sizes, rectangles and points.
extension Rotation {
    var swapsAxes: Bool { self == .clockwise90 || self == .clockwise270 }

    /// Size of the logical canvas for a physical panel of `physical` size.
    public func logicalSize(physical: Size) -> Size {
        swapsAxes ? Size(width: physical.height, height: physical.width) : physical
    }

    /// Physical size for a logical canvas.
    public func physicalSize(logical: Size) -> Size { logicalSize(physical: logical) }

    /// Where a logical rectangle lands on the panel.
    public func physicalRect(_ r: Rect, logical: Size) -> Rect {
        let w = logical.width, h = logical.height
        switch self {
        case .none: return r
        case .clockwise90: return Rect(x: h - r.maxY, y: r.x, width: r.height, height: r.width)
        case .upsideDown: return Rect(x: w - r.maxX, y: h - r.maxY, width: r.width, height: r.height)
        case .clockwise270: return Rect(x: r.y, y: w - r.maxX, width: r.height, height: r.width)
        }
    }

    /// Logical point under a physical one (touch input arrives in panel coordinates).
    public func logicalPoint(physical p: Point, logical: Size) -> Point {
        let w = logical.width, h = logical.height
        switch self {
        case .none: return p
        case .clockwise90: return Point(x: p.y, y: h - 1 - p.x)
        case .upsideDown: return Point(x: w - 1 - p.x, y: h - 1 - p.y)
        case .clockwise270: return Point(x: w - 1 - p.y, y: p.x)
        }
    }
}

/// A destination pixel format for presenting: converts one XRGB8888 word.
public protocol PixelPacking {
    associatedtype Pixel
    static func pack(_ xrgb: UInt32) -> Pixel
}

public enum XRGB8888: PixelPacking {
    @inline(__always) public static func pack(_ xrgb: UInt32) -> UInt32 { xrgb }
}

public enum RGB565: PixelPacking {
    @inline(__always) public static func pack(_ v: UInt32) -> UInt16 {
        UInt16(truncatingIfNeeded: ((v >> 8) & 0xF800) | ((v >> 5) & 0x07E0) | ((v >> 3) & 0x001F))
    }
}

extension Canvas {
    /// Copies logical rectangle `r` to a physical framebuffer at `dst`
    /// (`dstStride` in pixels), turning it by `rotation` and converting the
    /// pixel format. The destination must be rotation.physicalSize(canvas size).
    public func present<P: PixelPacking>(_ r: Rect, rotation: Rotation, to dst: UnsafeMutablePointer<P.Pixel>,
                                         dstStride: Int, format: P.Type) {
        let c = r.intersection(bounds)
        if c.isEmpty { return }
        let w = width, h = height
        pixels.withUnsafeBufferPointer { buf in
            guard let src = buf.baseAddress else { return }
            switch rotation {
            case .none:
                for y in c.y..<c.maxY {
                    let s = src + y * w, d = dst + y * dstStride
                    for x in c.x..<c.maxX { d[x] = P.pack(s[x]) }
                }
            case .upsideDown:
                for y in c.y..<c.maxY {
                    let s = src + y * w, d = dst + (h - 1 - y) * dstStride + (w - 1)
                    for x in c.x..<c.maxX { d[-x] = P.pack(s[x]) }
                }
            case .clockwise90:
                // Logical (x, y) -> physical (h - 1 - y, x).
                for y in c.y..<c.maxY {
                    let s = src + y * w, px = h - 1 - y
                    for x in c.x..<c.maxX { dst[x * dstStride + px] = P.pack(s[x]) }
                }
            case .clockwise270:
                // Logical (x, y) -> physical (y, w - 1 - x).
                for y in c.y..<c.maxY {
                    let s = src + y * w
                    for x in c.x..<c.maxX { dst[(w - 1 - x) * dstStride + y] = P.pack(s[x]) }
                }
            }
        }
    }
}
