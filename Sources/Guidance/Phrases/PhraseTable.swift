/// The words of one language that name the maneuvers, written as the
/// navigation apps write them (accents and capitals do not matter: phrases
/// are folded like the text). Each language has its own small file.
struct PhraseTable {
    var arrive: [String] = []
    var uTurn: [String] = []
    var roundabout: [String] = []
    var sharpLeft: [String] = []
    var sharpRight: [String] = []
    var slightLeft: [String] = []
    var slightRight: [String] = []
    var left: [String] = []
    var right: [String] = []
    var merge: [String] = []
    var straight: [String] = []
    /// Taking an exit or a ramp; its side comes from `leftSide` / `rightSide`.
    var exit: [String] = []
    var leftSide: [String] = []
    var rightSide: [String] = []
    /// Ordinal words of roundabout exits, first to fifth or more.
    var ordinals: [[String]] = []
    /// What may follow the number of a roundabout exit written in digits
    /// ("2nd", "2.", "2e", "2ª", "2番目", "2번째").
    var ordinalSuffixes: [String] = []
    /// What may come before it ("第2").
    var ordinalPrefixes: [String] = []
    /// Words around a distance that go with it ("in 200 m", "200 m先").
    var distanceBefore: [String] = []
    var distanceAfter: [String] = []
}

extension PhraseTable {
    /// Every language the classifier reads. The phone's language is not
    /// known (nor the head unit's setting relevant), so all are tried.
    static let all: [PhraseTable] = [
        english, spanish, german, french, italian, portuguese, dutch, polish, turkish,
        japanese, chineseSimplified, chineseTraditional, korean, arabic,
    ]
}
