extension Fonts {
    /// Draws a block of text into `rect`: the first baseline sits one
    /// ascent below rect.y, lines wrap at rect.width, at most
    /// `style.maxLines` lines, the last one ellipsized if text remains.
    /// Text is shaped and ordered for display: Arabic joined, right-to-left
    /// runs reversed, marks placed (TextShaping.swift).
    @discardableResult
    public func draw(_ text: String, in rect: Rect, style: TextStyle, on canvas: Canvas) -> TextResult {
        drawParagraph(paragraph(text, size: style.size, weight: style.weight), in: rect, style: style, on: canvas)
    }

    /// The same for raw UTF-8 bytes (invalid sequences show as U+FFFD).
    @discardableResult
    public func draw(utf8 bytes: [UInt8], in rect: Rect, style: TextStyle, on canvas: Canvas) -> TextResult {
        let p = bytes.withUnsafeBufferPointer { paragraph($0, size: style.size, weight: style.weight) }
        return drawParagraph(p, in: rect, style: style, on: canvas)
    }

    /// One line with its baseline at `baseline`, starting at `x`, cut with an
    /// ellipsis past `maxWidth`. Different sizes drawn at the same baseline
    /// line up (e.g. a big number and its small unit).
    @discardableResult
    public func draw(_ text: String, x: Int, baseline: Int, size: Int, weight: FontWeight = .regular,
                     color: Color, maxWidth: Int = 1 << 20, on canvas: Canvas) -> TextResult {
        let style = TextStyle(size: size, weight: weight, color: color)
        let asc = ascent(size: style.size, weight: weight)
        let p = paragraph(text, size: style.size, weight: weight)
        // The line starts at x whatever its direction: the caller placed it.
        return drawParagraph(p, in: Rect(x: x, y: baseline - asc, width: maxWidth, height: asc), style: style,
                             startAtLeft: true, on: canvas)
    }

    private func drawParagraph(_ p: ShapedParagraph, in rect: Rect, style: TextStyle, startAtLeft: Bool = false,
                               on canvas: Canvas) -> TextResult {
        let e = ellipsis(size: style.size, weight: style.weight)
        let ew = e.width(0, e.scalars.count)
        let lines = Fonts.breakLines(p, maxWidth: rect.width * 64, maxLines: style.maxLines, ellipsisWidth: ew)
        var ink = Rect.empty
        var widest = 0
        var baseline = rect.y + ascent(size: style.size, weight: style.weight)
        var alignment = style.alignment
        if p.rightToLeft && alignment == .left && !startAtLeft { alignment = .right }
        for line in lines {
            let w = (line.width + 63) >> 6
            widest = max(widest, w)
            var x = rect.x
            switch alignment {
            case .left: break
            case .center: x = rect.x + (rect.width - w) / 2
            case .right: x = rect.maxX - w
            }
            var pen = x * 64
            // The ellipsis ends the line in reading order: on the left of a
            // right-to-left paragraph.
            if line.ellipsis && p.rightToLeft {
                ink = ink.union(drawLine(e, 0, e.scalars.count, pen: &pen, baseline: baseline, style: style, on: canvas))
            }
            ink = ink.union(drawLine(p, line.start, line.end, pen: &pen, baseline: baseline, style: style, on: canvas))
            if line.ellipsis && !p.rightToLeft {
                ink = ink.union(drawLine(e, 0, e.scalars.count, pen: &pen, baseline: baseline, style: style, on: canvas))
            }
            baseline += style.lineAdvance
        }
        return TextResult(ink: ink, lines: lines.count, truncated: lines.last?.ellipsis ?? false, width: widest)
    }

    /// The glyphs of characters [start, end) of `p` as one line, left to
    /// right: the runs the line holds in visual order (bidi rule L2), each
    /// run's glyphs of those characters.
    func visualGlyphs(_ p: ShapedParagraph, _ start: Int, _ end: Int, into out: inout [ShapedGlyph]) {
        out.removeAll(keepingCapacity: true)
        lineRuns.removeAll(keepingCapacity: true)
        lineLevels.removeAll(keepingCapacity: true)
        for r in p.runs where r.end > start && r.start < end {
            lineRuns.append(r)
            lineLevels.append(r.level)
        }
        BidiLevels.visualOrder(lineLevels, into: &lineOrder)
        for k in lineOrder {
            let r = lineRuns[k]
            for i in r.glyphStart..<r.glyphEnd where Int(p.glyphs[i].cluster) >= start && Int(p.glyphs[i].cluster) < end {
                out.append(p.glyphs[i])
            }
        }
    }

    /// Draws characters [start, end) of `p` as one line from `pen` (26.6);
    /// returns the ink box.
    private func drawLine(_ p: ShapedParagraph, _ start: Int, _ end: Int, pen: inout Int, baseline: Int,
                          style: TextStyle, on canvas: Canvas) -> Rect {
        visualGlyphs(p, start, end, into: &lineGlyphs)
        var ink = Rect.empty
        for g in lineGlyphs {
            let px = (pen + Int(g.xOffset) + 32) >> 6
            let py = baseline - ((Int(g.yOffset) + 32) >> 6)
            if g.glyph == 0 {
                // .notdef: a character no font has. A box of our own, so it
                // looks the same whichever font's .notdef it came from.
                ink = ink.union(drawMissingBox(x: px, baseline: py, size: style.size, color: style.color, on: canvas))
            } else if let slot = glyph(face: Int(g.face), glyph: g.glyph, size: style.size) {
                ink = ink.union(blit(slot: slot, x: px, baseline: py, color: style.color, on: canvas))
            }
            pen += Int(g.advance)
        }
        return ink
    }

    /// Blends one cached glyph bitmap; returns the (clipped) area it covered.
    private func blit(slot: Int, x: Int, baseline: Int, color: Color, on canvas: Canvas) -> Rect {
        let gw = Int(cache.nodes[slot].glyph.width), gh = Int(cache.nodes[slot].glyph.height)
        if gw == 0 || gh == 0 { return .empty }
        let gx = x + Int(cache.nodes[slot].glyph.left)
        let gy = baseline - Int(cache.nodes[slot].glyph.top)
        let box = Rect(x: gx, y: gy, width: gw, height: gh)
        let c = box.intersection(canvas.clip)
        if c.isEmpty { return .empty }
        let src = color.pixel
        let ca = UInt32(color.alpha)
        let cw = canvas.width
        cache.nodes[slot].glyph.coverage.withUnsafeBufferPointer { cov in
            canvas.pixels.withUnsafeMutableBufferPointer { pix in
                guard let cv = cov.baseAddress, let p = pix.baseAddress else { return }
                for y in c.y..<c.maxY {
                    let srow = cv + (y - gy) * gw - gx
                    let drow = p + y * cw
                    for x in c.x..<c.maxX {
                        var a = UInt32(srow[x])
                        if a == 0 { continue }
                        if ca != 255 { a = (a &* ca &+ 127) / 255 }
                        drow[x] = a >= 255 ? src : blendPixel(drow[x], src, a)
                    }
                }
            }
        }
        return c
    }

    /// The visible stand-in for a character no font has: an outlined box.
    private func drawMissingBox(x: Int, baseline: Int, size: Int, color: Color, on canvas: Canvas) -> Rect {
        let h = max(3, size * 7 / 10)
        let w = max(3, size * 45 / 100)
        let t = max(1, size / 14)
        let box = Rect(x: x + max(1, size / 12), y: baseline - h, width: w, height: h)
        canvas.fill(Rect(x: box.x, y: box.y, width: w, height: t), color)
        canvas.fill(Rect(x: box.x, y: box.maxY - t, width: w, height: t), color)
        canvas.fill(Rect(x: box.x, y: box.y, width: t, height: h), color)
        canvas.fill(Rect(x: box.maxX - t, y: box.y, width: t, height: h), color)
        return box.intersection(canvas.clip)
    }
}
