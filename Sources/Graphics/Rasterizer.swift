/// Anti-aliased filling of vector paths: exact signed-area coverage
/// accumulation per cell (the technique of font-rs / stb_truetype v2),
/// then one running sum per row. Rows outside the clip are skipped.
extension Canvas {
    public func fill(_ path: Path, _ color: Color) {
        guard color.alpha > 0, let (minX, minY, maxX, maxY) = path.bounds else { return }
        let ox = Int(minX.rounded(.down)), oy = Int(minY.rounded(.down))
        let ex = Int(maxX.rounded(.up)), ey = Int(maxY.rounded(.up))
        // Rows are independent, so only the clipped rows are accumulated;
        // columns must start at the path's left edge for the running sum.
        let rowLo = max(oy, clip.y), rowHi = min(ey, clip.maxY)
        if rowLo >= rowHi || ex <= clip.x || ox >= clip.maxX { return }
        let cols = ex - ox + 2
        let rows = rowHi - rowLo
        if cols > 16384 || rows > 16384 { return }
        let needed = cols * rows
        if coverage.count < needed {
            coverage.append(contentsOf: [Float](repeating: 0, count: needed - coverage.count))
        }
        let top = Float(rowLo), bottom = Float(rowHi)
        let fx = Float(ox)
        coverage.withUnsafeMutableBufferPointer { accBuf in
            guard let acc = accBuf.baseAddress else { return }
            var start = 0
            for end in path.contourEnds {
                var j = end - 1
                for i in start..<end {
                    let p = path.points[j], q = path.points[i]
                    accumulateLine(acc, cols: cols, x0: p.x - fx, y0: p.y - top, x1: q.x - fx, y1: q.y - top,
                                   height: bottom - top)
                    j = i
                }
                start = end
            }
        }
        composite(rows: rows, cols: cols, originX: ox, originY: rowLo, color: color)
    }

    /// Adds one edge's signed area to the accumulation cells.
    @inline(__always)
    private func accumulateLine(_ acc: UnsafeMutablePointer<Float>, cols: Int,
                                x0 ax: Float, y0 ay: Float, x1 bx: Float, y1 by: Float, height: Float) {
        if ay == by { return }
        var dir: Float = 1
        var x0 = ax, y0 = ay, x1 = bx, y1 = by
        if y0 > y1 {
            dir = -1
            swap(&x0, &x1); swap(&y0, &y1)
        }
        if y1 <= 0 || y0 >= height { return }
        let dxdy = (x1 - x0) / (y1 - y0)
        var x = x0
        if y0 < 0 {
            x -= y0 * dxdy
            y0 = 0
        }
        let yEnd = min(y1, height)
        let maxIndex = Float(cols - 2)
        var y = Int(y0)
        while Float(y) < yEnd {
            let line = y * cols
            let fy = Float(y)
            let dy = min(fy + 1, yEnd) - max(fy, y0)
            let xnext = x + dxdy * dy
            let d = dy * dir
            var lo = x < xnext ? x : xnext
            var hi = x < xnext ? xnext : x
            lo = min(max(lo, 0), maxIndex)
            hi = min(max(hi, 0), maxIndex)
            let lof = lo.rounded(.down)
            let loi = Int(lof)
            let hic = hi.rounded(.up)
            let hii = Int(hic)
            if hii <= loi + 1 {
                let xmf = 0.5 * (lo + hi) - lof
                acc[line + loi] += d - d * xmf
                acc[line + loi + 1] += d * xmf
            } else {
                let s = 1 / (hi - lo)
                let x0f = lo - lof
                let a0 = 0.5 * s * (1 - x0f) * (1 - x0f)
                let x1f = hi - hic + 1
                let am = 0.5 * s * x1f * x1f
                acc[line + loi] += d * a0
                if hii == loi + 2 {
                    acc[line + loi + 1] += d * (1 - a0 - am)
                } else {
                    let a1 = s * (1.5 - x0f)
                    acc[line + loi + 1] += d * (a1 - a0)
                    var xi = loi + 2
                    while xi < hii - 1 {
                        acc[line + xi] += d * s
                        xi += 1
                    }
                    let a2 = a1 + Float(hii - loi - 3) * s
                    acc[line + hii - 1] += d * (1 - a2 - am)
                }
                acc[line + hii] += d * am
            }
            x = xnext
            y += 1
        }
    }

    /// Turns accumulated cells into coverage, blends, and zeroes the cells.
    private func composite(rows: Int, cols: Int, originX: Int, originY: Int, color: Color) {
        let src = color.pixel
        let ca = Float(color.alpha) * (255.0 / 255.0)
        let w = width
        let clipX0 = clip.x, clipX1 = clip.maxX
        coverage.withUnsafeMutableBufferPointer { accBuf in
            pixels.withUnsafeMutableBufferPointer { pixBuf in
                guard let acc = accBuf.baseAddress, let pix = pixBuf.baseAddress else { return }
                for r in 0..<rows {
                    let cells = acc + r * cols
                    let row = pix + (originY + r) * w
                    var sum: Float = 0
                    for c in 0..<cols {
                        sum += cells[c]
                        cells[c] = 0
                        let x = originX + c
                        if x < clipX0 || x >= clipX1 { continue }
                        var cov = sum < 0 ? -sum : sum
                        if cov > 1 { cov = 1 }
                        let a = UInt32(cov * ca + 0.5)
                        if a == 0 { continue }
                        row[x] = a >= 255 ? src : blendPixel(row[x], src, a)
                    }
                }
            }
        }
    }

    /// A filled rectangle with anti-aliased round corners of `radius` pixels.
    /// Straight edges lie on pixel boundaries, so only corner pixels blend.
    public func fillRoundedRect(_ r: Rect, radius: Float, _ color: Color) {
        if r.isEmpty || color.alpha == 0 { return }
        let rad = max(0, min(radius, Float(min(r.width, r.height)) / 2))
        if rad < 0.5 {
            fill(r, color)
            return
        }
        let band = Int(rad.rounded(.up))
        // Straight middle rows: one solid fill.
        fill(Rect(x: r.x, y: r.y + band, width: r.width, height: r.height - 2 * band), color)
        let left = Float(r.x) + rad, right = Float(r.maxX) - rad
        let topC = Float(r.y) + rad, bottomC = Float(r.maxY) - rad
        for y in r.y..<min(r.y + band, r.maxY) {
            cornerRow(y: y, r: r, rad: rad, left: left, right: right, dy: topC - (Float(y) + 0.5), band: band, color: color)
        }
        for y in max(r.maxY - band, r.y + band)..<r.maxY {
            cornerRow(y: y, r: r, rad: rad, left: left, right: right, dy: (Float(y) + 0.5) - bottomC, band: band, color: color)
        }
    }

    /// One row crossing the corner arcs: per-pixel coverage only within the
    /// corner columns; between them coverage depends on the row alone.
    @inline(__always)
    private func cornerRow(y: Int, r: Rect, rad: Float, left: Float, right: Float, dy rawDy: Float, band: Int, color: Color) {
        let dy = max(0, rawDy)
        let dy2 = dy * dy
        let coverage: (Int) -> UInt32 = { x in
            let px = Float(x) + 0.5
            var dx: Float = 0
            if px < left { dx = left - px } else if px > right { dx = px - right }
            let d = dx == 0 ? dy : (dx * dx + dy2).squareRoot()
            let cov = rad - d + 0.5
            if cov <= 0 { return 0 }
            if cov >= 1 { return 255 }
            return UInt32(cov * 255 + 0.5)
        }
        let leftEnd = min(r.x + band, r.maxX)
        let rightStart = max(r.maxX - band, leftEnd)
        blendSpan(y: y, from: r.x, to: leftEnd, color: color, coverage: coverage)
        if rightStart > leftEnd {
            let mid = coverage(leftEnd)
            if mid >= 255 && color.isOpaque {
                fill(Rect(x: leftEnd, y: y, width: rightStart - leftEnd, height: 1), color)
            } else if mid > 0 {
                blendSpan(y: y, from: leftEnd, to: rightStart, color: color) { _ in mid }
            }
        }
        blendSpan(y: y, from: rightStart, to: r.maxX, color: color, coverage: coverage)
    }

    /// A filled anti-aliased disc.
    public func fillCircle(center: PointF, radius: Float, _ color: Color) {
        if radius <= 0 || color.alpha == 0 { return }
        let y0 = Int((center.y - radius).rounded(.down)), y1 = Int((center.y + radius).rounded(.up))
        let x0 = Int((center.x - radius).rounded(.down)), x1 = Int((center.x + radius).rounded(.up))
        for y in y0..<y1 {
            let dy = Float(y) + 0.5 - center.y
            let dy2 = dy * dy
            blendSpan(y: y, from: x0, to: x1, color: color) { x in
                let dx = Float(x) + 0.5 - center.x
                let cov = radius - (dx * dx + dy2).squareRoot() + 0.5
                if cov <= 0 { return 0 }
                if cov >= 1 { return 255 }
                return UInt32(cov * 255 + 0.5)
            }
        }
    }
}
