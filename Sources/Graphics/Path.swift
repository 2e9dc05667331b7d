/// A filled vector shape: closed polygon contours in canvas pixel units.
/// Contours are filled with the non-zero rule; `addPolygon` and the shape
/// helpers orient every contour the same way so overlapping parts (a stroke's
/// joins, an arrow's head over its shaft) merge, and a `hole` contour is
/// oriented the other way so it cuts out.
public struct Path {
    public private(set) var points: [PointF] = []
    /// Exclusive end index in `points` of each contour.
    public private(set) var contourEnds: [Int] = []

    public init() {}

    public var isEmpty: Bool { points.isEmpty }

    /// Adds one closed contour.
    public mutating func addPolygon(_ polygon: [PointF], hole: Bool = false) {
        guard polygon.count >= 3 else { return }
        for p in polygon where !(p.x.isFinite && p.y.isFinite) { return }
        let positive = Path.signedArea(polygon) >= 0
        if positive != hole {
            points.append(contentsOf: polygon)
        } else {
            points.append(contentsOf: polygon.reversed())
        }
        contourEnds.append(points.count)
    }

    public mutating func addPath(_ other: Path) {
        let base = points.count
        points.append(contentsOf: other.points)
        for e in other.contourEnds { contourEnds.append(base + e) }
    }

    /// Twice the signed area (shoelace); positive for clockwise on screen.
    static func signedArea(_ p: [PointF]) -> Float {
        var a: Float = 0
        var j = p.count - 1
        for i in 0..<p.count {
            a += (p[j].x * p[i].y - p[i].x * p[j].y)
            j = i
        }
        return a
    }

    /// Points along an arc from `start` to `end` (radians, y down so positive
    /// angles turn clockwise on screen), both ends included.
    public static func arcPoints(center: PointF, radius: Float, start: Float, end: Float) -> [PointF] {
        let sweep = end - start
        // Enough segments for a smooth curve once shapes drawn in a unit
        // square are scaled up (64 per turn), more for large pixel radii.
        let byAngle = Int(abs(sweep) / (2 * Trig.pi) * 64) + 2
        let byLength = Int(abs(sweep) * radius / 2.5) + 2
        let steps = max(4, min(512, max(byAngle, byLength)))
        var out: [PointF] = []
        out.reserveCapacity(steps + 1)
        for i in 0...steps {
            let t = start + sweep * Float(i) / Float(steps)
            out.append(PointF(center.x + radius * Trig.cos(t), center.y + radius * Trig.sin(t)))
        }
        return out
    }

    public mutating func addCircle(center: PointF, radius: Float, hole: Bool = false) {
        guard radius > 0 else { return }
        var pts = Path.arcPoints(center: center, radius: radius, start: 0, end: 2 * Trig.pi)
        pts.removeLast()
        addPolygon(pts, hole: hole)
    }

    public mutating func addRoundedRect(x: Float, y: Float, width: Float, height: Float, radius: Float, hole: Bool = false) {
        let r = max(0, min(radius, min(width, height) / 2))
        if r < 0.01 {
            addPolygon([PointF(x, y), PointF(x + width, y), PointF(x + width, y + height), PointF(x, y + height)], hole: hole)
            return
        }
        let pi = Trig.pi
        var pts: [PointF] = []
        pts += Path.arcPoints(center: PointF(x + width - r, y + r), radius: r, start: -pi / 2, end: 0)
        pts += Path.arcPoints(center: PointF(x + width - r, y + height - r), radius: r, start: 0, end: pi / 2)
        pts += Path.arcPoints(center: PointF(x + r, y + height - r), radius: r, start: pi / 2, end: pi)
        pts += Path.arcPoints(center: PointF(x + r, y + r), radius: r, start: pi, end: 1.5 * pi)
        addPolygon(pts, hole: hole)
    }

    /// A polyline stroked `width` wide with round joins and round caps.
    public mutating func addStroke(_ line: [PointF], width: Float, roundCaps: Bool = true) {
        guard line.count >= 2, width > 0 else { return }
        let h = width / 2
        for i in 0..<(line.count - 1) {
            let p = line[i], q = line[i + 1]
            let dx = q.x - p.x, dy = q.y - p.y
            let len = (dx * dx + dy * dy).squareRoot()
            if len < 1e-4 { continue }
            let nx = -dy / len * h, ny = dx / len * h
            addPolygon([PointF(p.x + nx, p.y + ny), PointF(q.x + nx, q.y + ny),
                        PointF(q.x - nx, q.y - ny), PointF(p.x - nx, p.y - ny)])
        }
        let first = roundCaps ? 0 : 1
        let last = roundCaps ? line.count - 1 : line.count - 2
        if first <= last {
            for i in first...last { addCircle(center: line[i], radius: h) }
        }
    }

    /// The path mapped by x' = x * sx + dx, y' = y * sy + dy. A negative scale
    /// mirrors; orientation is kept because contours are re-checked on fill.
    public func transformed(sx: Float, sy: Float, dx: Float, dy: Float) -> Path {
        var out = Path()
        out.points = points.map { PointF($0.x * sx + dx, $0.y * sy + dy) }
        out.contourEnds = contourEnds
        if (sx < 0) != (sy < 0) {
            // A mirror flips every contour's orientation: flip them back.
            var start = 0
            for end in contourEnds {
                out.points[start..<end].reverse()
                start = end
            }
        }
        return out
    }

    /// (minX, minY, maxX, maxY), nil when empty.
    public var bounds: (Float, Float, Float, Float)? {
        guard var minX = points.first?.x, var minY = points.first?.y else { return nil }
        var maxX = minX, maxY = minY
        for p in points {
            minX = min(minX, p.x); maxX = max(maxX, p.x)
            minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        return (minX, minY, maxX, maxY)
    }
}
