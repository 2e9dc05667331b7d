extension PhraseTable {
    static let dutch = PhraseTable(
        arrive: ["bestemming", "aangekomen", "u bent gearriveerd", "aankomst"],
        uTurn: ["keer om", "omkeren", "keren", "draai om", "maak een u bocht", "u bocht"],
        roundabout: ["rotonde", "verkeersplein"],
        sharpLeft: ["scherpe bocht naar links", "scherp linksaf", "scherp naar links"],
        sharpRight: ["scherpe bocht naar rechts", "scherp rechtsaf", "scherp naar rechts"],
        slightLeft: ["houd links aan", "links aanhouden", "flauwe bocht naar links", "licht links", "hou links aan"],
        slightRight: ["houd rechts aan", "rechts aanhouden", "flauwe bocht naar rechts", "licht rechts", "hou rechts aan"],
        left: ["sla linksaf", "linksaf", "ga linksaf", "links afslaan"],
        right: ["sla rechtsaf", "rechtsaf", "ga rechtsaf", "rechts afslaan"],
        merge: ["voeg in", "invoegen"],
        straight: ["ga verder", "rechtdoor", "volg", "blijf op", "rijd verder", "rijd naar"],
        exit: ["afrit", "neem de afrit", "uitrit"],
        leftSide: ["links", "linker*"],
        rightSide: ["rechts", "rechter*"],
        ordinals: [["eerste"], ["tweede"], ["derde"], ["vierde"], ["vijfde"], ["zesde"]],
        ordinalSuffixes: ["e", "ste", "de"],
        distanceBefore: ["over", "na"]
    )
}
