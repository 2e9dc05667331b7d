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
        self.init(title: TextReading(title), message: TextReading(message))
    }

    /// The title decides the maneuver and the distance; the message fills in
    /// what the title does not say.
    init(title t: TextReading, message m: TextReading) {
        var reading = t.reading
        if reading.maneuver == .neutral {
            reading = m.reading
        } else if reading.maneuver == .roundabout && reading.roundaboutExit == nil {
            // "Roundabout" in the title, "take the 2nd exit" in the message.
            reading.roundaboutExit = m.exit
        }
        maneuver = reading.maneuver
        roundaboutExit = reading.roundaboutExit
        title = t.text
        message = m.text
        if let d = t.distance {
            distance = d
            title = t.withoutDistance
        } else if let d = m.distance {
            distance = d
            message = m.withoutDistance
        }
    }

    /// The text without `range`, the seam tidied.
    static func cut(_ range: Range<Int>, from text: FoldedText) -> String {
        // Tidied as it is read, around the range: no joined copy first.
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(text.scalars.count + 1)
        var lastSpace = false
        for u in text.scalars[..<range.lowerBound] { tidyAppend(u, to: &scalars, lastSpace: &lastSpace) }
        tidyAppend(" ", to: &scalars, lastSpace: &lastSpace)
        for u in text.scalars[range.upperBound...] { tidyAppend(u, to: &scalars, lastSpace: &lastSpace) }
        return trimmed(scalars)
    }

    /// Trimmed at both ends: spaces and the separator marks that join a
    /// distance to the rest ("· ", " - ", ",", ":", "、").
    private static let separators: [UInt32] = [0x20, 0x2C, 0x3A, 0x2D, 0xB7, 0x2013, 0x2014, 0x2022, 0x7C, 0xA0, 0x3001,
                                               0xFF0C, 0x60C]

    /// One scalar of the tidied text: runs of spaces collapse, and no space
    /// stays before "," or ".".
    @inline(__always)
    private static func tidyAppend(_ u: Unicode.Scalar, to scalars: inout [Unicode.Scalar], lastSpace: inout Bool) {
        let space = u.value == 0x20 || u.value == 0xA0
        if space && lastSpace { return }
        if (u.value == 0x2C || u.value == 0x2E), let l = scalars.last, l.value == 0x20 { scalars.removeLast() }
        scalars.append(space ? " " : u)
        lastSpace = space
    }

    /// The tidied scalars without spaces and separator marks at both ends.
    private static func trimmed(_ scalars: [Unicode.Scalar]) -> String {
        var start = 0, end = scalars.count
        while start < end, separators.contains(scalars[start].value) { start += 1 }
        while end > start, separators.contains(scalars[end - 1].value) { end -= 1 }
        return FoldedText.string(scalars[start..<end])
    }
}

/// What one text of a notification (its title or its message) says on its
/// own: the maneuver its phrases name, a roundabout exit, the first
/// distance and the text without it. `Guidance` combines the two.
struct TextReading {
    let text: String
    let reading: ManeuverReading
    /// The exit this text names, roundabout or not ("take the 2nd exit"):
    /// what a title that only says "Roundabout" leaves to the message.
    let exit: Int?
    let distance: Distance?
    /// `text` with the distance cut out (`text` when there is none).
    let withoutDistance: String

    init(_ text: String) {
        self.text = text
        let folded = FoldedText(text)
        let p = CompiledPhrases.shared
        let seen = p.index.sightings(folded.bytes)
        reading = ManeuverClassifier.classify(folded, seen)
        exit = reading.roundaboutExit ?? ManeuverClassifier.exitNumber(folded.bytes, seen, p)
        distance = Distance.find(in: folded)
        withoutDistance = distance.map { Guidance.cut($0.range, from: folded) } ?? text
    }
}

/// Reads the instructions of one navigation session, one after another.
/// Turn-by-turn guidance repeats the same instruction with a new distance
/// every few seconds, so one of the two texts is usually the one read just
/// before: the reader keeps the last reading of each and reads only what
/// changed. The result is always `Guidance(title:message:)`'s.
public struct GuidanceReader {
    private var lastTitle: TextReading?
    private var lastMessage: TextReading?

    public init() {}

    public mutating func read(title: String, message: String) -> Guidance {
        let t = GuidanceReader.reading(title, remembered: &lastTitle)
        let m = GuidanceReader.reading(message, remembered: &lastMessage)
        return Guidance(title: t, message: m)
    }

    private static func reading(_ text: String, remembered: inout TextReading?) -> TextReading {
        if let r = remembered, r.text == text { return r }
        let r = TextReading(text)
        remembered = r
        return r
    }
}
