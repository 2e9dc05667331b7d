extension PhraseTable {
    static let german = PhraseTable(
        arrive: ["ziel", "ihr ziel", "sie haben ihr ziel erreicht", "angekommen", "ankunft"],
        uTurn: ["wenden", "bitte wenden", "kehrtwende", "wende"],
        roundabout: ["kreisverkehr", "kreisel"],
        sharpLeft: ["scharf links", "biegen sie scharf links ab"],
        sharpRight: ["scharf rechts", "biegen sie scharf rechts ab"],
        slightLeft: ["leicht links", "links halten", "halten sie sich links", "links einordnen", "links bleiben",
                     "biegen sie leicht links ab"],
        slightRight: ["leicht rechts", "rechts halten", "halten sie sich rechts", "rechts einordnen", "rechts bleiben",
                      "biegen sie leicht rechts ab"],
        left: ["biegen sie links ab", "links abbieg*", "nach links abbieg*", "biegen sie nach links ab", "links ab"],
        right: ["biegen sie rechts ab", "rechts abbieg*", "nach rechts abbieg*", "biegen sie nach rechts ab", "rechts ab"],
        merge: ["auffahren", "fahren sie auf", "einfädeln", "einfadeln"],
        straight: ["geradeaus", "weiter auf", "weiterfahren", "fahren sie weiter", "folgen sie", "weiter geradeaus",
                   "fahren sie richtung"],
        exit: ["ausfahrt", "abfahrt", "nehmen sie die ausfahrt"],
        leftSide: ["links", "linken"],
        rightSide: ["rechts", "rechten"],
        ordinals: [["erste*"], ["zweite*"], ["dritte*"], ["vierte*"], ["fünfte*"], ["sechste*"]],
        ordinalSuffixes: ["."],
        distanceBefore: ["in", "nach"]
    )
}
