import DisplaySettings
import Testing
@testable import Graphics

@Suite struct CanvasTests {
    @Test func blendingIsExactAtTheEndsAndHalfwayInTheMiddle() {
        #expect(blendPixel(0xFF00_0000, 0xFFFF_FFFF, 0) == 0xFF00_0000)
        #expect(blendPixel(0xFF00_0000, 0xFF12_3456, 255) == 0xFF12_3456)
        let half = blendPixel(0xFF00_0000, 0xFFFF_FFFF, 128)
        #expect(half == 0xFF80_8080)
        // Every channel stays within one step of the exact value.
        for a: UInt32 in [1, 77, 200, 254] {
            let v = blendPixel(0xFF20_40F0, 0xFFF0_8010, a)
            let exactR = (0xF0 * Double(a) + 0x20 * Double(255 - a)) / 255
            #expect(abs(Double((v >> 16) & 0xFF) - exactR) <= 1)
        }
    }

    @Test func fillHonoursClipAndBlendsTranslucentColours() {
        let c = Canvas(width: 20, height: 10, fill: .black)
        c.clip = Rect(x: 5, y: 0, width: 10, height: 10)
        c.fill(Rect(x: 0, y: 0, width: 20, height: 5), .white)
        #expect(c.pixel(x: 4, y: 0) == Color.black.pixel)
        #expect(c.pixel(x: 5, y: 0) == Color.white.pixel)
        #expect(c.pixel(x: 15, y: 0) == Color.black.pixel)
        c.clip = c.bounds
        c.fill(Rect(x: 0, y: 5, width: 1, height: 1), Color(red: 255, green: 255, blue: 255, alpha: 128))
        #expect(c.pixel(x: 0, y: 5) == 0xFF80_8080)
    }

    @Test func damageMergesOverlappingRectsAndCapsTheList() {
        var d = Damage(limit: 3)
        d.add(Rect(x: 0, y: 0, width: 10, height: 10))
        d.add(Rect(x: 5, y: 5, width: 10, height: 10))
        #expect(d.rects == [Rect(x: 0, y: 0, width: 15, height: 15)])
        d.add(Rect(x: 100, y: 100, width: 1, height: 1))
        d.add(Rect(x: 200, y: 0, width: 1, height: 1))
        #expect(d.rects.count == 3)
        d.add(Rect(x: 300, y: 0, width: 1, height: 1))
        #expect(d.rects == [Rect(x: 0, y: 0, width: 301, height: 101)])
        d.add(Rect.empty)
        #expect(d.rects.count == 1)
    }

    @Test func polygonCoverageIsExactOnPixelEdgesAndHalfOnHalfPixels() {
        let c = Canvas(width: 30, height: 30, fill: .black)
        var p = Path()
        p.addPolygon([PointF(2, 2), PointF(12, 2), PointF(12, 12), PointF(2, 12)])
        c.fill(p, .white)
        #expect(c.inkCount(in: c.bounds, background: .black) == 100)
        #expect(c.pixel(x: 2, y: 2) == Color.white.pixel && c.pixel(x: 11, y: 11) == Color.white.pixel)
        #expect(c.pixel(x: 12, y: 5) == Color.black.pixel)

        let h = Canvas(width: 30, height: 30, fill: .black)
        var q = Path()
        q.addPolygon([PointF(2.5, 2), PointF(12.5, 2), PointF(12.5, 12), PointF(2.5, 12)])
        h.fill(q, .white)
        let edge = h.pixel(x: 2, y: 5) & 0xFF
        #expect(edge >= 126 && edge <= 129)
    }

    @Test func circleAreaAndHolesAndOverlaps() {
        let c = Canvas(width: 100, height: 100, fill: .black)
        var p = Path()
        p.addCircle(center: PointF(50, 50), radius: 30)
        p.addCircle(center: PointF(50, 50), radius: 10, hole: true)
        // An overlapping contour of the same orientation merges (no cancellation).
        p.addPolygon([PointF(75, 45), PointF(95, 45), PointF(95, 55), PointF(75, 55)])
        c.fill(p, .white)
        var coverage = 0.0
        for v in c.pixels { coverage += Double(v & 0xFF) / 255 }
        let expected = Double.pi * (900 - 100) + (95 - 80) * 10 + 5 * 10 * 0.9
        #expect(abs(coverage - expected) / expected < 0.03)
        #expect(c.pixel(x: 50, y: 50) == Color.black.pixel)        // the hole
        #expect(c.pixel(x: 50, y: 25) == Color.white.pixel)        // the ring
        #expect(c.pixel(x: 78, y: 50) == Color.white.pixel)        // the overlap
    }

    @Test func pathFillRespectsClipRows() {
        let c = Canvas(width: 40, height: 40, fill: .black)
        c.clip = Rect(x: 0, y: 10, width: 40, height: 10)
        var p = Path()
        p.addCircle(center: PointF(20, 20), radius: 15)
        c.fill(p, .white)
        c.clip = c.bounds
        #expect(c.inkBounds(background: .black) == Rect(x: 5, y: 10, width: 30, height: 10))
    }

    @Test func roundedRectHasSolidInteriorAndSoftCorners() {
        let c = Canvas(width: 60, height: 40, fill: .black)
        c.fillRoundedRect(Rect(x: 10, y: 10, width: 40, height: 20), radius: 8, .white)
        #expect(c.pixel(x: 30, y: 10) == Color.white.pixel)    // straight top edge
        #expect(c.pixel(x: 10, y: 20) == Color.white.pixel)    // straight left edge
        #expect(c.pixel(x: 10, y: 10) == Color.black.pixel)    // cut corner
        let corner = c.pixel(x: 12, y: 12) & 0xFF
        #expect(corner > 0 && corner < 255)                    // anti-aliased arc
        #expect(c.inkBounds(background: .black) == Rect(x: 10, y: 10, width: 40, height: 20))
    }

    @Test func presentRotatesEveryWay() {
        let c = Canvas(width: 4, height: 2, fill: .black)
        c.fill(Rect(x: 0, y: 0, width: 1, height: 1), .white)  // marker at logical (0,0)
        for rotation in [Rotation.none, .clockwise90, .upsideDown, .clockwise270] {
            let ps = rotation.physicalSize(logical: c.size)
            var out = [UInt32](repeating: 0, count: ps.width * ps.height)
            out.withUnsafeMutableBufferPointer {
                c.present(c.bounds, rotation: rotation, to: $0.baseAddress!, dstStride: ps.width, format: XRGB8888.self)
            }
            let marker = rotation.physicalRect(Rect(x: 0, y: 0, width: 1, height: 1), logical: c.size)
            #expect(out[marker.y * ps.width + marker.x] == Color.white.pixel, "\(rotation)")
            #expect(out.filter { $0 == Color.white.pixel }.count == 1)
            // A touch on the marker maps back to logical (0,0).
            #expect(rotation.logicalPoint(physical: Point(x: marker.x, y: marker.y), logical: c.size) == Point(x: 0, y: 0))
        }
        #expect(RGB565.pack(0xFFFF_0000) == 0xF800)
        #expect(RGB565.pack(0xFF00_FF00) == 0x07E0)
        #expect(RGB565.pack(0xFF00_00FF) == 0x001F)
    }

    @Test func trigonometryIsAccurate() {
        for i in -20...20 {
            let a = Float(i) * 0.7
            let s = Trig.sin(a), c = Trig.cos(a)
            #expect(abs(s * s + c * c - 1) < 1e-5)
        }
        #expect(abs(Trig.sin(Trig.pi / 6) - 0.5) < 1e-6)
        #expect(abs(Trig.cos(Trig.pi)  + 1) < 1e-6)
    }
}
