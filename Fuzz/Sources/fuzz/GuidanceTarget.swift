import Guidance

/// Instruction text as a phone may send it: any bytes, read as UTF-8 (the
/// ANCS client decodes them the same way), split into title and message at
/// the first NUL. Whatever it is, the reading is one of the maneuvers, an
/// exit is a real exit number and only at a roundabout, a distance is
/// positive and bounded, and the text shown never grows.
enum GuidanceTarget {
    static let target = FuzzTarget(name: "guidance", run: run, seeds: seeds)

    static func run(_ data: [UInt8]) {
        let cut = data.firstIndex(of: 0) ?? data.count
        let title = String(decoding: data[..<cut], as: UTF8.self)
        let message = cut < data.count ? String(decoding: data[(cut + 1)...], as: UTF8.self) : ""
        let g = Guidance(title: title, message: message)
        if let exit = g.roundaboutExit {
            invariant(g.maneuver == .roundabout, "exit \(exit) without a roundabout (\(g.maneuver.eventName))")
            invariant(exit >= 1 && exit <= 12, "exit \(exit)")
        }
        if let d = g.distance {
            invariant(d.metres >= 0 && d.metres <= 2_000_000_000, "distance \(d.metres) m")
            invariant(!d.value.isEmpty, "a distance without its number")
        }
        invariant(g.title.unicodeScalars.count <= title.unicodeScalars.count + 1, "the title grew")
        invariant(g.message.unicodeScalars.count <= message.unicodeScalars.count + 1, "the message grew")
        invariant(ManeuverClassifier.classify(title + "\n" + message).maneuver.eventName.utf8.count > 0, "no name")
    }

    static func seeds() -> [(String, [UInt8])] {
        let texts = [
            "In 350 m\u{0}Turn left onto Market Street",
            "At the roundabout, take the 2nd exit",
            "En la rotonda, toma la 2.ª salida",
            "Im Kreisverkehr die 2. Ausfahrt nehmen",
            "200メートル先\u{0}右折です",
            "进入环岛，从第2个出口驶出",
            "회전교차로에서 2번째 출구로 나가세요",
            "بعد ١٫٥ كم، اسلك المخرج على اليمين",
            "Destination will be on the left",
            "1,200 ft\u{0}Take the exit on the right",
        ]
        var out: [(String, [UInt8])] = []
        for (i, t) in texts.enumerated() { out.append(("text-\(i)", Array(t.utf8))) }
        out.append(("invalid-utf8", [0xFF, 0xC3, 0x28, 0xE3, 0x81, 0x30, 0x30, 0x6D]))
        return out
    }
}
