import CHarfBuzz

/// Paragraph to glyphs: bidi levels (FriBidi), runs of one level and one
/// script, fonts per run (the script's fonts first, then the family, then
/// the fallbacks, then the other scripts' fonts; the first that has the
/// character), and HarfBuzz shaping of each piece of one font. The result is cached by text, size and
/// weight.
extension Fonts {
    func paragraph(_ text: String, size: Int, weight: FontWeight) -> ShapedParagraph {
        var t = text
        return t.withUTF8 { paragraph($0, size: size, weight: weight) }
    }

    func paragraph(_ bytes: UnsafeBufferPointer<UInt8>, size: Int, weight: FontWeight) -> ShapedParagraph {
        let key = ShapeCache.Key(text: Array(bytes), size: size, weight: weight.rawValue)
        if let p = paragraphs.lookup(key) { return p }
        let p = shape(bytes, size: size, weight: weight)
        paragraphs.insert(key, p)
        return p
    }

    /// The shaped ellipsis ("…", or "..." if no font has it).
    func ellipsis(size: Int, weight: FontWeight) -> ShapedParagraph {
        paragraph(resolve(0x2026, weight: weight) != nil ? "\u{2026}" : "...", size: size, weight: weight)
    }

    private func shape(_ bytes: UnsafeBufferPointer<UInt8>, size: Int, weight: FontWeight) -> ShapedParagraph {
        let p = ShapedParagraph()
        var i = 0
        while i < bytes.count {
            var (scalar, len) = UTF8Decoder.decode(bytes, at: i)
            i += len
            if scalar < 0x20 || (scalar >= 0x7F && scalar < 0xA0) { scalar = 0x20 }
            p.scalars.append(scalar)
        }
        let n = p.scalars.count
        p.advances = [Int32](repeating: 0, count: n)
        p.clusterStart = [Bool](repeating: false, count: n)
        p.breaks = [UInt8](repeating: LineBreaks.none, count: n)
        for j in 1..<max(1, n) { p.breaks[j] = LineBreaks.before(p.scalars[j], after: p.scalars[j - 1]) }
        thaiWords.mark(p.scalars, &p.breaks)
        p.rightToLeft = bidi.resolve(p.scalars, into: &p.levels)
        resolveScripts(p.scalars)
        // Runs of one level and one script, each shaped with its font(s).
        var start = 0
        while start < n {
            var end = start + 1
            while end < n && p.levels[end] == p.levels[start] && scripts[end] == scripts[start] { end += 1 }
            shapeRun(p, start, end, script: scripts[start], size: size, weight: weight)
            start = end
        }
        return p
    }

    /// The script of every character; characters of no script of their own
    /// (spaces, digits, punctuation, combining marks) take the script of the
    /// text before them, or after them at the start.
    private func resolveScripts(_ scalars: [UInt32]) {
        scripts.removeAll(keepingCapacity: true)
        var last = HB_SCRIPT_COMMON
        var firstReal = -1
        for (i, s) in scalars.enumerated() {
            let sc = hb_unicode_script(unicode, s)
            if sc == HB_SCRIPT_COMMON || sc == HB_SCRIPT_INHERITED || sc == HB_SCRIPT_UNKNOWN {
                scripts.append(last)
            } else {
                if firstReal < 0 { firstReal = i }
                last = sc
                scripts.append(sc)
            }
        }
        if firstReal > 0 {
            for i in 0..<firstReal { scripts[i] = scripts[firstReal] }
        }
    }

    /// Faces to try for a run of `script`, best first.
    private func faceOrder(script: hb_script_t, weight: FontWeight) {
        candidates.removeAll(keepingCapacity: true)
        func add(_ f: Int) { if !candidates.contains(f) { candidates.append(f) } }
        for s in scriptFaces where s.script == script { add(weight == .bold ? s.bold : s.regular) }
        for s in scriptFaces where s.script == script { add(s.regular) }
        add(weight.rawValue)
        add(1 - weight.rawValue)
        for f in fallbackFaces { add(f) }
        for f in 2..<max(2, faces.count) { add(f) }
    }

    /// Characters that need no glyph of their own to be covered: format
    /// controls and variation selectors, which HarfBuzz removes.
    @inline(__always)
    static func isInvisible(_ s: UInt32) -> Bool {
        (s >= 0x200B && s <= 0x200F) || (s >= 0xFE00 && s <= 0xFE0F) || s == 0x2060 || s == 0xFEFF || s == 0x061C
            || (s >= 0x202A && s <= 0x202E) || (s >= 0x2066 && s <= 0x2069) || (s >= 0xE0100 && s <= 0xE01EF)
    }

    /// Marks and joiners stay in the font of the character they attach to.
    @inline(__always)
    private func attaches(_ s: UInt32) -> Bool {
        if s == 0x200C || s == 0x200D || (s >= 0xFE00 && s <= 0xFE0F) { return true }
        let c = hb_unicode_general_category(unicode, s)
        return c == HB_UNICODE_GENERAL_CATEGORY_NON_SPACING_MARK || c == HB_UNICODE_GENERAL_CATEGORY_SPACING_MARK
            || c == HB_UNICODE_GENERAL_CATEGORY_ENCLOSING_MARK
    }

    private func shapeRun(_ p: ShapedParagraph, _ start: Int, _ end: Int, script: hb_script_t, size: Int, weight: FontWeight) {
        faceOrder(script: script, weight: weight)
        // Per character, the first font that has it (marks follow their
        // base): a Hebrew street name keeps the Hebrew font even with a
        // symbol only DejaVu has. Characters no font has get the family's
        // .notdef box.
        runFaces.removeAll(keepingCapacity: true)
        for i in start..<end {
            let s = p.scalars[i]
            if i > start && (Fonts.isInvisible(s) || (attaches(s) && faces[runFaces[i - start - 1]].glyphIndex(s) != 0)) {
                runFaces.append(runFaces[i - start - 1])
                continue
            }
            var chosen = weight.rawValue
            for f in candidates where faces[f].glyphIndex(s) != 0 { chosen = f; break }
            runFaces.append(chosen)
        }
        var a = start
        while a < end {
            var b = a + 1
            while b < end && runFaces[b - start] == runFaces[a - start] { b += 1 }
            shapeWith(p, a, b, face: runFaces[a - start], script: script, size: size)
            a = b
        }
    }

    /// HarfBuzz shapes characters [start, end) with one face; the whole
    /// paragraph is the context, so Arabic joins across a change of font.
    private func shapeWith(_ p: ShapedParagraph, _ start: Int, _ end: Int, face: Int, script: hb_script_t, size: Int) {
        let level = p.levels[start]
        let glyphStart = p.glyphs.count
        guard let font = faces[face].harfBuzzFont(size: size) else { return }
        hb_buffer_clear_contents(buffer)
        p.scalars.withUnsafeBufferPointer { text in
            hb_buffer_add_utf32(buffer, text.baseAddress, Int32(text.count), UInt32(start), Int32(end - start))
        }
        hb_buffer_set_direction(buffer, level & 1 == 1 ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        hb_buffer_set_script(buffer, script == HB_SCRIPT_COMMON ? HB_SCRIPT_LATIN : script)
        var flags = HB_BUFFER_FLAG_REMOVE_DEFAULT_IGNORABLES.rawValue
        if start == 0 { flags |= HB_BUFFER_FLAG_BOT.rawValue }
        if end == p.scalars.count { flags |= HB_BUFFER_FLAG_EOT.rawValue }
        hb_buffer_set_flags(buffer, hb_buffer_flags_t(rawValue: flags))
        hb_shape(font, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, nil) else { return }
        for k in 0..<Int(count) {
            let cluster = Int(infos[k].cluster)
            let g = ShapedGlyph(face: Int16(face), glyph: infos[k].codepoint, cluster: Int32(cluster),
                                advance: positions[k].x_advance, xOffset: positions[k].x_offset,
                                yOffset: positions[k].y_offset)
            p.glyphs.append(g)
            if cluster >= start && cluster < end {
                p.advances[cluster] += g.advance
                p.clusterStart[cluster] = true
            }
        }
        p.runs.append(ShapedRun(start: start, end: end, level: level, glyphStart: glyphStart, glyphEnd: p.glyphs.count))
    }
}
