/// What one navigation notification says, understood: the maneuver, the
/// roundabout exit and the distance to it. Computed from the title and the
/// message as the phone sent them, in whichever language the phone uses;
/// the `notification` event and the screen both take it from here.
public struct Guidance: Equatable {
    public var maneuver: Maneuver
    /// 1 = the first exit; nil when not a roundabout or not said.
    public var roundaboutExit: Int?
    /// The first distance of the title, else of the message.
    public var distance: Distance?
    /// The title and the message with the distance (and its "in", "先")
    /// taken out, spaces and separators tidied.
    public var title: String
    public var message: String

    public init(title: String, message: String) {
        let t = FoldedText(title), m = FoldedText(message)
        var reading = ManeuverClassifier.classify(t)
        if reading.maneuver == .neutral {
            reading = ManeuverClassifier.classify(m)
        } else if reading.maneuver == .roundabout && reading.roundaboutExit == nil {
            // "Roundabout" in the title, "take the 2nd exit" in the message.
            reading.roundaboutExit = ManeuverClassifier.classify(m).roundaboutExit
                ?? ManeuverClassifier.exitNumber(m.bytes, CompiledPhrases.shared.index.sightings(m.bytes), CompiledPhrases.shared)
        }
        maneuver = reading.maneuver
        roundaboutExit = reading.roundaboutExit
        self.title = title
        self.message = message
        if let d = Distance.find(in: t) {
            distance = d
            self.title = Guidance.cut(d.range, from: t)
        } else if let d = Distance.find(in: m) {
            distance = d
            self.message = Guidance.cut(d.range, from: m)
        }
    }

    /// The text without `range`, the seam tidied.
    static func cut(_ range: Range<Int>, from text: FoldedText) -> String {
        tidy(text.original(0, range.lowerBound) + " " + text.original(range.upperBound, text.scalars.count))
    }

    /// Collapses runs of spaces and trims spaces and separator marks at
    /// both ends ("· ", " - ", ",", ":", "、").
    static func tidy(_ s: String) -> String {
        let separators: [UInt32] = [0x20, 0x2C, 0x3A, 0x2D, 0xB7, 0x2013, 0x2014, 0x2022, 0x7C, 0xA0, 0x3001, 0xFF0C, 0x60C]
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
