import Graphics

/// Digits drawn as strokes, for numbers inside icons (a roundabout's exit):
/// the icons are vector shapes without fonts, so the firmware draws them
/// pixel for pixel like the host (docs/EMBEDDED.md, the maneuver sheet).
enum Digits {
    /// Each digit as polylines in a box 0...1 wide and high (y down).
    static func strokes(_ d: Int) -> [[PointF]] {
        let pi = Trig.pi
        func arc(_ cx: Float, _ cy: Float, _ rx: Float, _ ry: Float, _ from: Float, _ to: Float) -> [PointF] {
            Path.arcPoints(center: PointF(0, 0), radius: 1, start: from, end: to).map { PointF(cx + rx * $0.x, cy + ry * $0.y) }
        }
        switch d {
        case 0: return [arc(0.5, 0.5, 0.5, 0.5, 0, 2 * pi)]
        case 1: return [[PointF(0.2, 0.22), PointF(0.6, 0), PointF(0.6, 1)]]
        case 2: return [arc(0.5, 0.28, 0.46, 0.28, pi, 2.15 * pi) + [PointF(0, 1), PointF(1, 1)]]
        case 3: return [arc(0.5, 0.25, 0.42, 0.25, 1.1 * pi, 2.5 * pi), arc(0.5, 0.73, 0.5, 0.27, 1.5 * pi, 2.9 * pi)]
        case 4: return [[PointF(0.72, 1), PointF(0.72, 0), PointF(0, 0.7), PointF(1, 0.7)]]
        case 5: return [[PointF(0.92, 0), PointF(0.12, 0), PointF(0.06, 0.45)] + arc(0.48, 0.68, 0.5, 0.32, 1.2 * pi, 2.85 * pi)]
        case 6: return [arc(0.5, 0.7, 0.5, 0.3, 0, 2 * pi), arc(0.95, 0.7, 0.95, 0.7, pi, 1.45 * pi)]
        case 7: return [[PointF(0, 0), PointF(1, 0), PointF(0.35, 1)]]
        case 8: return [arc(0.5, 0.25, 0.4, 0.25, 0, 2 * pi), arc(0.5, 0.73, 0.5, 0.27, 0, 2 * pi)]
        default: return strokes(6).map { line in line.map { PointF(1 - $0.x, 1 - $0.y) } }  // 9: a 6 turned over
        }
    }

    /// `n` (0...99) centred on `center`, `height` tall, in the unit square of an icon.
    static func number(_ n: Int, center: PointF, height: Float) -> Path {
        let text = n >= 10 ? [n / 10 % 10, n % 10] : [n % 10]
        let width = height * 0.58
        let gap = height * 0.2
        let stroke = height * 0.2
        let total = Float(text.count) * width + Float(text.count - 1) * gap
        var p = Path()
        var x = center.x - total / 2
        let y = center.y - height / 2
        for d in text {
            for line in strokes(d) {
                p.addStroke(line.map { PointF(x + $0.x * width, y + $0.y * height) }, width: stroke)
            }
            x += width + gap
        }
        return p
    }
}
