extension PhraseTable {
    static let italian = PhraseTable(
        arrive: ["destinazione", "sei arrivato", "arrivo", "arriverai", "sei giunto"],
        uTurn: ["inversione a u", "fai inversione", "esegui un'inversione", "inverti la marcia", "inversione di marcia"],
        roundabout: ["rotonda", "rotatoria"],
        sharpLeft: ["svolta decisamente a sinistra", "curva stretta a sinistra", "decisamente a sinistra"],
        sharpRight: ["svolta decisamente a destra", "curva stretta a destra", "decisamente a destra"],
        slightLeft: ["leggermente a sinistra", "mantieni la sinistra", "tieni la sinistra", "svolta leggermente a sinistra",
                     "resta a sinistra", "mantieniti sulla sinistra"],
        slightRight: ["leggermente a destra", "mantieni la destra", "tieni la destra", "svolta leggermente a destra",
                      "resta a destra", "mantieniti sulla destra"],
        left: ["svolta a sinistra", "gira a sinistra", "voltare a sinistra", "svoltare a sinistra"],
        right: ["svolta a destra", "gira a destra", "voltare a destra", "svoltare a destra"],
        merge: ["immettiti", "immettersi", "entra in", "confluisci"],
        straight: ["continua", "prosegui", "procedi", "dritto", "diritto", "sempre dritto", "vai dritto"],
        exit: ["uscita", "prendi l'uscita", "esci", "svincolo"],
        leftSide: ["sinistra"],
        rightSide: ["destra"],
        ordinals: [["prima"], ["seconda"], ["terza"], ["quarta"], ["quinta"], ["sesta"]],
        ordinalSuffixes: ["a", ".a", "o"],
        distanceBefore: ["tra", "fra", "dopo"]
    )
}
