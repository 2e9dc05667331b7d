extension PhraseTable {
    /// Google Maps, Apple Maps and Waze in English.
    static let english = PhraseTable(
        arrive: ["destination", "arrive", "arrived", "arriving", "you have arrived"],
        uTurn: ["u turn", "uturn", "turn around"],
        roundabout: ["roundabout", "rotary", "traffic circle"],
        sharpLeft: ["sharp left", "turn sharply left", "turn sharp left"],
        sharpRight: ["sharp right", "turn sharply right", "turn sharp right"],
        slightLeft: ["slight left", "slightly left", "bear left", "keep left", "veer left", "stay left", "fork left"],
        slightRight: ["slight right", "slightly right", "bear right", "keep right", "veer right", "stay right", "fork right"],
        left: ["turn left", "left turn", "go left", "left onto", "make a left"],
        right: ["turn right", "right turn", "go right", "right onto", "make a right"],
        merge: ["merge"],
        straight: ["continue", "straight", "head north", "head south", "head east", "head west", "head northeast",
                   "head northwest", "head southeast", "head southwest", "proceed", "stay on", "drive"],
        exit: ["exit", "ramp", "off ramp"],
        leftSide: ["left"],
        rightSide: ["right"],
        ordinals: [["first", "1st"], ["second", "2nd"], ["third", "3rd"], ["fourth", "4th"], ["fifth", "5th"],
                   ["sixth", "6th"], ["seventh", "7th"], ["eighth", "8th"]],
        ordinalSuffixes: ["st", "nd", "rd", "th"],
        distanceBefore: ["in", "after"]
    )
}
