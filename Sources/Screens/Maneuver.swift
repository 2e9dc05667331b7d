/// The arrow shown for a navigation instruction.
public enum Maneuver: Equatable, CaseIterable {
    case left, right, slightLeft, slightRight, sharpLeft, sharpRight, uTurn, roundabout, straight, arrive
    /// No recognised words (another language, an unusual phrasing).
    case neutral

    /// A short English name, shown when the instruction has no distance.
    public var label: String? {
        switch self {
        case .left: return "Turn left"
        case .right: return "Turn right"
        case .slightLeft: return "Keep left"
        case .slightRight: return "Keep right"
        case .sharpLeft: return "Sharp left"
        case .sharpRight: return "Sharp right"
        case .uTurn: return "U-turn"
        case .roundabout: return "Roundabout"
        case .straight: return "Straight on"
        case .arrive: return "Arrive"
        case .neutral: return nil
        }
    }

    /// Picks the maneuver from English instruction text. The most specific
    /// phrase wins: "sharp left" before "left", "destination ... on the right"
    /// is an arrival, not a right turn.
    public static func classify(_ text: String) -> Maneuver {
        let w = words(text)
        func has(_ a: String) -> Bool { w.contains(a) }
        func phrase(_ a: String, _ b: String) -> Bool {
            guard w.count >= 2 else { return false }
            for i in 0..<(w.count - 1) where w[i] == a && w[i + 1] == b { return true }
            return false
        }
        if phrase("u", "turn") || has("uturn") || phrase("make", "u") { return .uTurn }
        if has("roundabout") || has("rotary") || phrase("traffic", "circle") { return .roundabout }
        if has("arrive") || has("arrived") || has("arriving") || has("destination") { return .arrive }
        if phrase("sharp", "left") { return .sharpLeft }
        if phrase("sharp", "right") { return .sharpRight }
        for lead in ["slight", "slightly", "bear", "keep", "veer", "fork"] {
            if phrase(lead, "left") { return .slightLeft }
            if phrase(lead, "right") { return .slightRight }
        }
        if phrase("turn", "left") { return .left }
        if phrase("turn", "right") { return .right }
        if has("exit") || has("ramp") { return has("left") ? .slightLeft : .slightRight }
        if has("left") { return .left }
        if has("right") { return .right }
        if has("straight") || has("continue") || has("head") || has("proceed") { return .straight }
        return .neutral
    }

    /// Lowercased ASCII words; anything else separates words.
    static func words(_ text: String) -> [String] {
        var out: [String] = []
        var cur: [UInt8] = []
        for b in text.utf8 {
            if (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) {
                cur.append(b)
            } else if b >= 0x41 && b <= 0x5A {
                cur.append(b + 0x20)
            } else if !cur.isEmpty {
                out.append(String(decoding: cur, as: UTF8.self))
                cur.removeAll(keepingCapacity: true)
            }
        }
        if !cur.isEmpty { out.append(String(decoding: cur, as: UTF8.self)) }
        return out
    }
}

/// What the navigation card shows, derived from the notification text:
/// the maneuver, the distance split into number and unit (drawn at two sizes
/// on one baseline), the main instruction and the rest of the message.
public struct NavigationSummary: Equatable {
    public var maneuver: Maneuver
    public var distance: String
    public var unit: String
    public var primary: String
    public var secondary: String
    public var app: String

    public init(_ n: NavigationInstruction) {
        maneuver = Maneuver.classify(n.title + " " + n.message)
        app = NavigationSummary.appName(n.app)
        var title = n.title, message = n.message
        distance = ""
        unit = ""
        if let d = NavigationSummary.extractDistance(title) {
            distance = d.value; unit = d.unit; title = d.rest
        } else if let d = NavigationSummary.extractDistance(message) {
            distance = d.value; unit = d.unit; message = d.rest
        }
        if title.isEmpty {
            primary = message
            secondary = ""
        } else {
            primary = title
            secondary = message
        }
    }

    /// A friendly name for the known navigation apps.
    static func appName(_ id: String) -> String {
        switch id {
        case "com.google.Maps": return "Google Maps"
        case "com.apple.Maps": return "Apple Maps"
        case "com.waze.iphone": return "Waze"
        default: return id
        }
    }

    static let units: [(String, String)] = [
        ("m", "m"), ("meters", "m"), ("metres", "m"), ("meter", "m"), ("metre", "m"),
        ("km", "km"), ("kilometers", "km"), ("kilometres", "km"),
        ("ft", "ft"), ("feet", "ft"), ("foot", "ft"),
        ("mi", "mi"), ("mile", "mi"), ("miles", "mi"),
        ("yd", "yd"), ("yds", "yd"), ("yards", "yd"),
    ]

    /// Finds the first "<number> <unit>" (e.g. "350 m", "0.5 mi", "1,2 km")
    /// and returns it with the text around it, a leading "In"/"in" and
    /// separators removed.
    static func extractDistance(_ text: String) -> (value: String, unit: String, rest: String)? {
        let b = Array(text.utf8)
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
        var i = 0
        while i < b.count {
            if isDigit(b[i]) && (i == 0 || !(isLetter(b[i - 1]) || isDigit(b[i - 1]) || b[i - 1] == 0x2E)) {
                var j = i
                while j < b.count && isDigit(b[j]) { j += 1 }
                if j + 1 < b.count && (b[j] == 0x2E || b[j] == 0x2C) && isDigit(b[j + 1]) {
                    j += 1
                    while j < b.count && isDigit(b[j]) { j += 1 }
                }
                let numberEnd = j
                // Spaces, including a UTF-8 no-break space.
                while j < b.count && (b[j] == 0x20 || (b[j] == 0xC2 && j + 1 < b.count && b[j + 1] == 0xA0)) {
                    j += b[j] == 0x20 ? 1 : 2
                }
                var k = j
                while k < b.count && isLetter(b[k]) { k += 1 }
                let word = String(decoding: b[j..<k].map { $0 | 0x20 }, as: UTF8.self)
                if let u = units.first(where: { $0.0 == word }), k > j {
                    let value = String(decoding: b[i..<numberEnd], as: UTF8.self)
                    var start = i
                    // Drop a preceding "in " ("In 300 ft").
                    if start >= 3 && (b[start - 3] | 0x20) == 0x69 && (b[start - 2] | 0x20) == 0x6E && b[start - 1] == 0x20
                        && (start == 3 || !isLetter(b[start - 4])) {
                        start -= 3
                    }
                    let before = String(decoding: b[0..<start], as: UTF8.self)
                    let after = String(decoding: b[k...], as: UTF8.self)
                    return (value, u.1, tidy(before + " " + after))
                }
                i = max(numberEnd, i + 1)
            } else {
                i += 1
            }
        }
        return nil
    }

    /// Collapses runs of spaces and trims spaces and separator marks at
    /// both ends ("· ", " - ", ",", ":").
    static func tidy(_ s: String) -> String {
        let separators: Set<UInt32> = [0x20, 0x2C, 0x3A, 0x2D, 0xB7, 0x2013, 0x2014, 0x2022, 0x7C, 0xA0]
        var scalars: [Unicode.Scalar] = []
        var lastSpace = false
        for u in s.unicodeScalars {
            let space = u.value == 0x20 || u.value == 0xA0
            if space && lastSpace { continue }
            if (u.value == 0x2C || u.value == 0x2E), let l = scalars.last, l.value == 0x20 { scalars.removeLast() }
            scalars.append(space ? " " : u)
            lastSpace = space
        }
        while let f = scalars.first, separators.contains(f.value) { scalars.removeFirst() }
        while let l = scalars.last, separators.contains(l.value) { scalars.removeLast() }
        var out = ""
        out.unicodeScalars.append(contentsOf: scalars)
        return out
    }
}
