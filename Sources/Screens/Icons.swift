import Graphics
import Guidance
import ScreenValues

/// Icons drawn from vector shapes in a unit square (0...1, y down), scaled
/// into a pixel rectangle when drawn. No bitmaps.
enum Icons {
    static let shaft: Float = 0.15
    static let headLength: Float = 0.34
    static let headWidth: Float = 0.46

    /// A thick arrow along `line` with a triangular head at its last point.
    static func arrow(_ line: [PointF], shaft: Float = shaft) -> Path {
        var p = Path()
        guard line.count >= 2, let tip = line.last else { return p }
        let prev = line[line.count - 2]
        var dx = tip.x - prev.x, dy = tip.y - prev.y
        let len = (dx * dx + dy * dy).squareRoot()
        if len < 1e-5 { return p }
        dx /= len; dy /= len
        let base = PointF(tip.x - dx * headLength, tip.y - dy * headLength)
        var body = Array(line.dropLast())
        // The shaft ends inside the head so the two merge without a seam.
        body.append(PointF(base.x + dx * 0.05, base.y + dy * 0.05))
        p.addStroke(body, width: shaft, roundCaps: false)
        // Round the shaft's tail only.
        p.addCircle(center: line[0], radius: shaft / 2)
        let nx = -dy * headWidth / 2, ny = dx * headWidth / 2
        p.addPolygon([tip, PointF(base.x + nx, base.y + ny), PointF(base.x - nx, base.y - ny)])
        return p
    }

    static func mirrored(_ p: Path) -> Path { p.transformed(sx: -1, sy: 1, dx: 1, dy: 0) }

    /// The arrow of `m`; a roundabout with a known exit carries the exit's
    /// number in its ring (drawn from strokes like the arrows, no font).
    static func maneuver(_ m: Maneuver, exit: Int?) -> Path {
        guard m == .roundabout, let exit, exit >= 1, exit <= 99 else { return maneuver(m) }
        let pi = Trig.pi
        var p = Path()
        // A larger ring than the plain icon's, to hold the number.
        let c = PointF(0.44, 0.56)
        p.addCircle(center: c, radius: 0.36)
        p.addCircle(center: c, radius: 0.26, hole: true)
        p.addStroke([PointF(c.x, 0.99), PointF(c.x, 0.88)], width: shaft)
        let a = -pi / 4
        let from = PointF(c.x + 0.31 * Trig.cos(a), c.y + 0.31 * Trig.sin(a))
        p.addPath(arrow([from, PointF(0.95, 0.05)], shaft: shaft * 0.9))
        p.addPath(Digits.number(exit, center: c, height: 0.24))
        return p
    }

    static func maneuver(_ m: Maneuver) -> Path {
        let pi = Trig.pi
        switch m {
        case .straight:
            return arrow([PointF(0.5, 0.94), PointF(0.5, 0.08)])
        case .right:
            var line = [PointF(0.3, 0.94)]
            line += Path.arcPoints(center: PointF(0.54, 0.56), radius: 0.24, start: pi, end: 1.5 * pi)
            line.append(PointF(0.92, 0.32))
            return arrow(line)
        case .left:
            return mirrored(maneuver(.right))
        case .slightRight:
            return arrow([PointF(0.36, 0.94), PointF(0.36, 0.62), PointF(0.78, 0.18)])
        case .slightLeft:
            return mirrored(maneuver(.slightRight))
        case .sharpRight:
            return arrow([PointF(0.3, 0.94), PointF(0.3, 0.18), PointF(0.8, 0.7)])
        case .sharpLeft:
            return mirrored(maneuver(.sharpRight))
        case .uTurn:
            var line = [PointF(0.7, 0.94)]
            line += Path.arcPoints(center: PointF(0.47, 0.42), radius: 0.23, start: 0, end: -pi)
            line.append(PointF(0.24, 0.86))
            return arrow(line)
        case .roundabout:
            var p = Path()
            let c = PointF(0.5, 0.54)
            p.addCircle(center: c, radius: 0.25)
            p.addCircle(center: c, radius: 0.14, hole: true)
            p.addStroke([PointF(0.5, 0.97), PointF(0.5, 0.76)], width: shaft)
            let a = -pi / 4
            let from = PointF(c.x + 0.2 * Trig.cos(a), c.y + 0.2 * Trig.sin(a))
            p.addPath(arrow([from, PointF(0.9, 0.1)], shaft: shaft * 0.9))
            return p
        case .merge:
            // A side road joining the one that goes on.
            var p = arrow([PointF(0.62, 0.94), PointF(0.62, 0.08)])
            p.addStroke([PointF(0.2, 0.94), PointF(0.2, 0.74), PointF(0.6, 0.38)], width: shaft * 0.8)
            p.addCircle(center: PointF(0.2, 0.94), radius: shaft * 0.4)
            return p
        case .exitRight:
            // The road goes on (thin), the exit leaves it to the right.
            var p = arrow([PointF(0.26, 0.94), PointF(0.26, 0.7), PointF(0.84, 0.2)])
            p.addStroke([PointF(0.26, 0.7), PointF(0.26, 0.06)], width: shaft * 0.5)
            return p
        case .exitLeft:
            return mirrored(maneuver(.exitRight))
        case .arrive:
            var p = Path()
            p.addCircle(center: PointF(0.5, 0.36), radius: 0.28)
            p.addPolygon([PointF(0.26, 0.5), PointF(0.74, 0.5), PointF(0.5, 0.96)])
            p.addCircle(center: PointF(0.5, 0.36), radius: 0.11, hole: true)
            return p
        case .neutral:
            var p = Path()
            p.addPolygon([PointF(0.5, 0.08), PointF(0.84, 0.9), PointF(0.5, 0.7), PointF(0.16, 0.9)])
            return p
        }
    }

    static func play() -> Path {
        var p = Path()
        p.addPolygon([PointF(0.34, 0.22), PointF(0.82, 0.5), PointF(0.34, 0.78)])
        return p
    }

    static func pause() -> Path {
        var p = Path()
        p.addRoundedRect(x: 0.28, y: 0.24, width: 0.15, height: 0.52, radius: 0.03)
        p.addRoundedRect(x: 0.57, y: 0.24, width: 0.15, height: 0.52, radius: 0.03)
        return p
    }

    /// A phone with two signal waves: the idle screen's emblem.
    static func phoneLink() -> Path {
        var p = Path()
        p.addRoundedRect(x: 0.18, y: 0.1, width: 0.36, height: 0.8, radius: 0.07)
        p.addRoundedRect(x: 0.23, y: 0.2, width: 0.26, height: 0.56, radius: 0.02, hole: true)
        let pi = Trig.pi
        p.addStroke(Path.arcPoints(center: PointF(0.5, 0.5), radius: 0.24, start: -pi / 4, end: pi / 4), width: 0.06)
        p.addStroke(Path.arcPoints(center: PointF(0.5, 0.5), radius: 0.38, start: -pi / 4, end: pi / 4), width: 0.06)
        return p
    }

    /// Small glyph for a notification category in the status bar.
    static func category(_ c: NotificationCategory) -> Path {
        var p = Path()
        switch c {
        case .incomingCall, .missedCall, .voicemail:
            p.addRoundedRect(x: 0.28, y: 0.06, width: 0.44, height: 0.88, radius: 0.1)
            p.addRoundedRect(x: 0.34, y: 0.16, width: 0.32, height: 0.6, radius: 0.02, hole: true)
        case .social:
            p.addRoundedRect(x: 0.06, y: 0.12, width: 0.88, height: 0.58, radius: 0.16)
            p.addPolygon([PointF(0.22, 0.6), PointF(0.46, 0.6), PointF(0.18, 0.92)])
        case .email:
            p.addRoundedRect(x: 0.06, y: 0.18, width: 0.88, height: 0.64, radius: 0.08)
            p.addPolygon([PointF(0.14, 0.28), PointF(0.86, 0.28), PointF(0.5, 0.56)], hole: true)
        case .schedule:
            p.addRoundedRect(x: 0.1, y: 0.14, width: 0.8, height: 0.76, radius: 0.1)
            p.addRoundedRect(x: 0.2, y: 0.38, width: 0.6, height: 0.42, radius: 0.03, hole: true)
        case .location:
            p.addCircle(center: PointF(0.5, 0.38), radius: 0.3)
            p.addPolygon([PointF(0.24, 0.52), PointF(0.76, 0.52), PointF(0.5, 0.96)])
            p.addCircle(center: PointF(0.5, 0.38), radius: 0.12, hole: true)
        case .entertainment:
            p.addCircle(center: PointF(0.34, 0.74), radius: 0.18)
            p.addStroke([PointF(0.47, 0.74), PointF(0.47, 0.1), PointF(0.82, 0.22)], width: 0.12)
        default:
            p.addCircle(center: PointF(0.5, 0.5), radius: 0.3)
        }
        return p
    }
}

extension Canvas {
    /// Fills a unit-square icon scaled into `rect`.
    func drawIcon(_ icon: Path, in rect: Rect, color: Color) {
        let s = Float(min(rect.width, rect.height))
        let dx = Float(rect.x) + (Float(rect.width) - s) / 2
        let dy = Float(rect.y) + (Float(rect.height) - s) / 2
        fill(icon.transformed(sx: s, sy: s, dx: dx, dy: dy), color)
    }
}
