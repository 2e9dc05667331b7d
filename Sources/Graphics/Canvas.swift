/// An XRGB8888 pixel buffer with a clip rectangle and a damage list. Every
/// drawing call honours `clip`; callers record what they changed with
/// `addDamage` so outputs copy only those parts.
public final class Canvas {
    public let width: Int
    public let height: Int
    /// Row-major pixels, stride == width.
    public var pixels: [UInt32]
    /// Drawing outside this rectangle is ignored. Always inside the canvas.
    public var clip: Rect {
        didSet { clip = clip.intersection(bounds) }
    }
    public var damage = Damage()
    /// Scratch space of the polygon rasterizer, kept to avoid per-draw allocation.
    var coverage: [Float] = []

    public init(width: Int, height: Int, fill: Color = .black) {
        self.width = max(0, width)
        self.height = max(0, height)
        pixels = [UInt32](repeating: fill.pixel, count: max(0, width) * max(0, height))
        clip = Rect(x: 0, y: 0, width: max(0, width), height: max(0, height))
    }

    public convenience init(size: Size, fill: Color = .black) {
        self.init(width: size.width, height: size.height, fill: fill)
    }

    public var size: Size { Size(width: width, height: height) }
    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    public func pixel(x: Int, y: Int) -> UInt32 {
        guard x >= 0, y >= 0, x < width, y < height else { return 0 }
        return pixels[y * width + x]
    }

    public func addDamage(_ r: Rect) { damage.add(r.intersection(bounds)) }

    /// Returns the damage collected since the last call and starts afresh.
    public func takeDamage() -> Damage {
        let d = damage
        damage.removeAll()
        return d
    }

    /// Runs `body` with the clip narrowed to `r`, then restores it.
    @inline(__always)
    public func withClip<R>(_ r: Rect, _ body: () -> R) -> R {
        let saved = clip
        clip = saved.intersection(r)
        defer { clip = saved }
        return body()
    }

    /// Fills `r` (clipped). A translucent colour is blended.
    public func fill(_ r: Rect, _ color: Color) {
        let c = r.intersection(clip)
        if c.isEmpty { return }
        let w = width
        let a = UInt32(color.alpha)
        if a == 0 { return }
        let src = color.pixel
        pixels.withUnsafeMutableBufferPointer { buf in
            guard let base = buf.baseAddress else { return }
            for y in c.y..<c.maxY {
                let row = base + y * w
                if a == 255 {
                    (row + c.x).update(repeating: src, count: c.width)
                } else {
                    for x in c.x..<c.maxX { row[x] = blendPixel(row[x], src, a) }
                }
            }
        }
    }

    /// Fills the whole clip area.
    public func clear(_ color: Color) { fill(clip, color) }

    /// Blends `color` into one horizontal span with per-pixel coverage
    /// supplied by `cov(x)` in 0...255. Used by the shape rasterizers.
    @inline(__always)
    func blendSpan(y: Int, from x0: Int, to x1: Int, color: Color, coverage cov: (Int) -> UInt32) {
        let c = clip
        if y < c.y || y >= c.maxY { return }
        let lo = max(x0, c.x), hi = min(x1, c.maxX)
        if lo >= hi { return }
        let src = color.pixel
        let ca = UInt32(color.alpha)
        let w = width
        pixels.withUnsafeMutableBufferPointer { buf in
            guard let base = buf.baseAddress else { return }
            let row = base + y * w
            for x in lo..<hi {
                var a = cov(x)
                if a == 0 { continue }
                if ca != 255 { a = (a &* ca &+ 127) / 255 }
                row[x] = a >= 255 ? src : blendPixel(row[x], src, a)
            }
        }
    }

    /// Copies another canvas (or part of it) here at `origin`, clipped.
    public func draw(_ other: Canvas, from source: Rect, at origin: Point) {
        let src = source.intersection(other.bounds)
        let dest = Rect(x: origin.x, y: origin.y, width: src.width, height: src.height).intersection(clip)
        if dest.isEmpty { return }
        let dx = src.x - origin.x, dy = src.y - origin.y
        let ow = other.width, w = width
        other.pixels.withUnsafeBufferPointer { sbuf in
            pixels.withUnsafeMutableBufferPointer { dbuf in
                guard let s = sbuf.baseAddress, let d = dbuf.baseAddress else { return }
                for y in dest.y..<dest.maxY {
                    (d + y * w + dest.x).update(from: s + (y + dy) * ow + dest.x + dx, count: dest.width)
                }
            }
        }
    }
}
