import Testing
@testable import Guidance

/// The reader keeps the last title and message it read; whatever order the
/// texts come in, what it returns must be what a fresh reading says.
@Suite struct GuidanceReaderTests {
    /// Turn-by-turn updates: the distance changes in the title, the
    /// instruction stays; then the instruction changes.
    @Test func distanceUpdatesReadAsFresh() {
        var reader = GuidanceReader()
        let updates: [(String, String)] = [
            ("In 500 m", "Turn left onto Market Street"),
            ("In 400 m", "Turn left onto Market Street"),
            ("In 300 m", "Turn left onto Market Street"),
            ("In 300 m", "Turn left onto Market Street"),
            ("In 200 m", "Turn right onto 5th Ave"),
            ("Roundabout", "Take the 3rd exit onto Oak St"),
            ("Roundabout", "Take the 2nd exit onto Oak St"),
            ("Turn right onto Oak St", "in 1,2 km, then keep left"),
            ("Turn right onto Oak St", ""),
            ("", "Turn right onto Oak St"),
            ("", ""),
        ]
        for (title, message) in updates {
            let read = reader.read(title: title, message: message)
            #expect(read == Guidance(title: title, message: message), "\(title) / \(message)")
            #expect(read.title == Guidance(title: title, message: message).title)
            #expect(read.message == Guidance(title: title, message: message).message)
        }
        // The roundabout's exit comes from the message that changed, not the remembered one.
        #expect(reader.read(title: "Roundabout", message: "Take the 1st exit").roundaboutExit == 1)
        #expect(reader.read(title: "Roundabout", message: "Take the 4th exit").roundaboutExit == 4)
    }

    /// Every instruction of every language, as a title and as a message,
    /// each after the one before: a text read as a title is not taken for
    /// the same text as a message, nor the other way.
    @Test func everyLanguageInEitherPlace() {
        var reader = GuidanceReader()
        for (language, table) in InstructionTables.all {
            var previous = ""
            for i in table {
                for (title, message) in [("", i.text), (i.text, ""), (i.text, previous), (previous, i.text), (i.text, i.text)] {
                    let read = reader.read(title: title, message: message)
                    let fresh = Guidance(title: title, message: message)
                    #expect(read == fresh && read.title == fresh.title && read.message == fresh.message,
                            "\(language): \(title) / \(message)")
                }
                previous = i.text
            }
        }
    }
}

/// The text without its distance is cut from the text as the phone wrote
/// it (its UTF-8, read one scalar at a time): multi-byte letters, blanks
/// and separators are kept or trimmed whole, and the cap on the text's
/// length counts scalars, not bytes.
@Suite struct DistanceCutTests {
    @Test(arguments: [
        ("In 200\u{00A0}m , turn left", "turn left"),
        ("、200メートル先、左方向です", "左方向です"),
        ("بعد ٢٠٠ م، انعطف يسارا", "انعطف يسارا"),
        ("Dans 300 m · tournez à droite — rue de l’Église", "tournez à droite — rue de l’Église"),
        ("Tournez à droite dans 300 m", "Tournez à droite"),
        ("e\u{301}toile · 200 m", "e\u{301}toile"),
    ])
    func cutKeepsTheRestAsWritten(text: String, rest: String) {
        #expect(Guidance(title: text, message: "").title == rest)
        #expect(Guidance(title: "", message: text).message == rest)
    }

    /// 1,024 scalars are read: "In 200 m " is nine of them, so 1,015 of
    /// the two-byte letters after it are kept.
    @Test func capCountsScalars() {
        let g = Guidance(title: "In 200 m " + String(repeating: "é", count: 1100), message: "")
        #expect(g.distance?.metres == 200)
        #expect(g.title == String(repeating: "é", count: 1015))
    }

    /// A reader reuses its arrays from text to text: a short text after a
    /// long one is read as if it came first.
    @Test func shortAfterLong() {
        var reader = GuidanceReader()
        _ = reader.read(title: "In 2 km " + String(repeating: "ü ", count: 600), message: "")
        let read = reader.read(title: "In 300 m", message: "Turn left")
        #expect(read == Guidance(title: "In 300 m", message: "Turn left"))
        #expect(read.title == "" && read.message == "Turn left" && read.maneuver == .left)
    }
}
