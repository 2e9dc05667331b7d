extension PhraseTable {
    static let french = PhraseTable(
        arrive: ["destination", "vous êtes arrivé", "arrivée", "arrivee", "arrivé", "arrive"],
        uTurn: ["demi tour", "faites demi tour", "faire demi tour"],
        roundabout: ["rond point", "giratoire", "carrefour giratoire"],
        sharpLeft: ["tournez franchement à gauche", "franchement à gauche", "virage serré à gauche", "serrez à gauche fortement"],
        sharpRight: ["tournez franchement à droite", "franchement à droite", "virage serré à droite", "serrez à droite fortement"],
        slightLeft: ["légèrement à gauche", "serrez à gauche", "restez à gauche", "tenez votre gauche", "restez sur la gauche",
                     "serrez la gauche", "prenez à gauche à la fourche"],
        slightRight: ["légèrement à droite", "serrez à droite", "restez à droite", "tenez votre droite", "restez sur la droite",
                      "serrez la droite", "prenez à droite à la fourche"],
        left: ["tournez à gauche", "tourner à gauche", "prenez à gauche", "à gauche sur", "virez à gauche"],
        right: ["tournez à droite", "tourner à droite", "prenez à droite", "à droite sur", "virez à droite"],
        merge: ["rejoignez", "rejoindre", "insérez vous", "inserez vous", "engagez vous sur"],
        straight: ["continuez", "tout droit", "continuer", "suivez", "dirigez vous", "poursuivez"],
        exit: ["sortie", "bretelle", "prenez la sortie"],
        leftSide: ["gauche"],
        rightSide: ["droite"],
        ordinals: [["première", "premiere", "1re", "1ère"], ["deuxième", "deuxieme", "seconde"], ["troisième", "troisieme"],
                   ["quatrième", "quatrieme"], ["cinquième", "cinquieme"], ["sixième", "sixieme"]],
        ordinalSuffixes: ["e", "eme", "ème", "re", "er"],
        distanceBefore: ["dans", "après", "apres", "à"]
    )
}
