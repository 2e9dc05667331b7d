extension PhraseTable {
    static let polish = PhraseTable(
        arrive: ["cel podróży", "cel podrozy", "miejsce docelowe", "dotarłeś", "dojechałeś", "jesteś na miejscu", "cel"],
        uTurn: ["zawróć", "zawroc", "zawracanie", "zawrócić"],
        roundabout: ["rondo", "rondzie"],
        sharpLeft: ["ostro w lewo", "skręć ostro w lewo"],
        sharpRight: ["ostro w prawo", "skręć ostro w prawo"],
        slightLeft: ["lekko w lewo", "trzymaj się lewej", "trzymaj sie lewej", "łagodnie w lewo", "zjedź w lewo",
                     "kieruj się w lewo"],
        slightRight: ["lekko w prawo", "trzymaj się prawej", "trzymaj sie prawej", "łagodnie w prawo", "zjedź w prawo",
                      "kieruj się w prawo"],
        left: ["skręć w lewo", "skrec w lewo", "w lewo"],
        right: ["skręć w prawo", "skrec w prawo", "w prawo"],
        merge: ["włącz się", "wlacz sie", "wjedź na", "wjedz na"],
        straight: ["jedź prosto", "jedz prosto", "prosto", "kontynuuj", "jedź dalej", "jedz dalej"],
        exit: ["zjazd", "zjazdem", "zjedź", "zjedz"],
        leftSide: ["lewo", "lewej", "lewym"],
        rightSide: ["prawo", "prawej", "prawym"],
        ordinals: [["pierwszy*"], ["drugi*"], ["trzeci*"], ["czwarty*"], ["piąty*"], ["szósty*"]],
        ordinalSuffixes: ["."],
        distanceBefore: ["za", "po"]
    )
}
