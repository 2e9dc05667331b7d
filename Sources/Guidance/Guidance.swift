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
        // Each text assigned once.
        if let d = t.distance {
            distance = d
            title = t.withoutDistance
            message = m.text
        } else if let d = m.distance {
            distance = d
            title = t.text
            message = m.withoutDistance
        } else {
            distance = nil
            title = t.text
            message = m.text
        }
    }

    /// The text without `range` (UTF-8 offsets in `text.text`), the
    /// seam tidied, built in `out` (storage kept from text to text).
    static func cut(_ range: Range<Int>, from text: FoldedText, in out: inout [UInt8]) -> String {
        // Tidied as it is read, around the range: no joined copy first.
        out.removeAll(keepingCapacity: true)
        out.reserveCapacity(text.sourceCount + 1)
        var lastSpace = false
        text.withSource { s in
            tidy(s, 0..<range.lowerBound, to: &out, lastSpace: &lastSpace)
            tidyAppend(0x20, s, at: 0, count: 0, to: &out, lastSpace: &lastSpace)
            tidy(s, range.upperBound..<s.count, to: &out, lastSpace: &lastSpace)
        }
        return out.withUnsafeBufferPointer { trimmed($0) }
    }

    /// Trimmed at both ends: spaces and the separator marks that join a
    /// distance to the rest ("· ", " - ", ",", ":", "、").
    private static let separators: [UInt32] = [0x20, 0x2C, 0x3A, 0x2D, 0xB7, 0x2013, 0x2014, 0x2022, 0x7C, 0xA0, 0x3001,
                                               0xFF0C, 0x60C]

    /// The scalars of `s` in `range`, tidied onto `out`.
    @inline(__always)
    private static func tidy(_ s: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, to out: inout [UInt8],
                             lastSpace: inout Bool) {
        var i = range.lowerBound
        while i < range.upperBound {
            let (v, n) = FoldedText.scalar(s, at: i)
            tidyAppend(v, s, at: i, count: n, to: &out, lastSpace: &lastSpace)
            i += n
        }
    }

    /// One scalar of the tidied text (`v`, the `count` bytes at `at` of
    /// `s`): runs of spaces collapse, and no space stays before "," or ".".
    @inline(__always)
    private static func tidyAppend(_ v: UInt32, _ s: UnsafeBufferPointer<UInt8>, at: Int, count: Int,
                                   to out: inout [UInt8], lastSpace: inout Bool) {
        let space = v == 0x20 || v == 0xA0
        if space && lastSpace { return }
        // 0x20 is never part of a longer sequence: a last byte 0x20 is a space.
        if (v == 0x2C || v == 0x2E) && out.last == 0x20 { out.removeLast() }
        if space {
            out.append(0x20)
        } else {
            for k in at..<(at + count) { out.append(s[k]) }
        }
        lastSpace = space
    }

    /// The tidied text without spaces and separator marks at both ends.
    private static func trimmed(_ u: UnsafeBufferPointer<UInt8>) -> String {
        var start = 0, end = u.count
        while start < end {
            let (v, n) = FoldedText.scalar(u, at: start)
            guard separators.contains(v) else { break }
            start += n
        }
        while end > start {
            // The last scalar starts at the last byte that is not a continuation byte.
            var first = end - 1
            while u[first] & 0xC0 == 0x80 { first -= 1 }
            guard separators.contains(FoldedText.scalar(u, at: first).0) else { break }
            end = first
        }
        return String(decoding: UnsafeBufferPointer(rebasing: u[start..<end]), as: UTF8.self)
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
        var storage = ReadingStorage()
        self.init(text, in: &storage)
    }

    /// Read in `storage`'s arrays, which keep their room for the next text.
    init(_ text: String, in storage: inout ReadingStorage) {
        self.text = text
        storage.folded.fold(text)
        let p = CompiledPhrases.shared
        storage.folded.withBytes { p.index.sightings($0, into: &storage.seen) }
        reading = ManeuverClassifier.classify(storage.folded, storage.seen)
        exit = reading.roundaboutExit ?? storage.folded.withBytes { ManeuverClassifier.exitNumber($0, storage.seen, p) }
        distance = Distance.find(in: storage.folded)
        if let d = distance {
            withoutDistance = Guidance.cut(d.range, from: storage.folded, in: &storage.cut)
        } else {
            withoutDistance = text
        }
    }
}

/// The arrays a reading works in. A reader keeps one from text to text:
/// made and freed for each new title, they were five allocations a
/// notification.
struct ReadingStorage {
    var folded = FoldedText()
    /// Where each meaning is first found (`PhraseIndex.sightings`).
    var seen: [Int] = []
    /// The text without its distance, tidied (`Guidance.cut`).
    var cut: [UInt8] = []
}

/// Reads the instructions of one navigation session, one after another.
/// Turn-by-turn guidance repeats the same instruction with a new distance
/// every few seconds, so one of the two texts is usually the one read just
/// before: the reader keeps the last reading of each and reads only what
/// changed. The result is always `Guidance(title:message:)`'s.
public struct GuidanceReader {
    /// The readings of the last title and message, read where they lie:
    /// copying a reading out to return it and in to remember it retained
    /// and released each of its strings twice. Both start as the reading of
    /// no text, which is what a first empty text reads as.
    private var lastTitle: TextReading
    private var lastMessage: TextReading
    private var storage = ReadingStorage()

    public init() {
        lastTitle = TextReading("", in: &storage)
        lastMessage = lastTitle
    }

    public mutating func read(title: String, message: String) -> Guidance {
        if lastTitle.text != title { lastTitle = TextReading(title, in: &storage) }
        if lastMessage.text != message { lastMessage = TextReading(message, in: &storage) }
        return Guidance(title: lastTitle, message: lastMessage)
    }
}
