extension PhraseTable {
    static let spanish = PhraseTable(
        arrive: ["destino", "has llegado", "llegada", "llegarás", "llegaras", "ha llegado"],
        uTurn: ["cambio de sentido", "cambia de sentido", "media vuelta", "da la vuelta", "gira en u", "haz un cambio de sentido"],
        roundabout: ["rotonda", "glorieta"],
        sharpLeft: ["gira bruscamente a la izquierda", "giro cerrado a la izquierda", "gira totalmente a la izquierda",
                    "bruscamente a la izquierda"],
        sharpRight: ["gira bruscamente a la derecha", "giro cerrado a la derecha", "gira totalmente a la derecha",
                     "bruscamente a la derecha"],
        slightLeft: ["mantente a la izquierda", "gira ligeramente a la izquierda", "ligeramente a la izquierda",
                     "mantenerse a la izquierda", "manténgase a la izquierda", "ve por la izquierda", "incorpórate por la izquierda"],
        slightRight: ["mantente a la derecha", "gira ligeramente a la derecha", "ligeramente a la derecha",
                      "mantenerse a la derecha", "manténgase a la derecha", "ve por la derecha", "incorpórate por la derecha"],
        left: ["gira a la izquierda", "girar a la izquierda", "gire a la izquierda", "dobla a la izquierda", "gira izquierda"],
        right: ["gira a la derecha", "girar a la derecha", "gire a la derecha", "dobla a la derecha", "gira derecha"],
        merge: ["incorpórate", "incorporate", "incorporarse", "incorpórese"],
        straight: ["continúa", "continua", "sigue recto", "todo recto", "sigue", "dirígete", "dirigete", "continúe", "siga"],
        exit: ["salida", "toma la salida", "sal por"],
        leftSide: ["izquierda"],
        rightSide: ["derecha"],
        ordinals: [["primera"], ["segunda"], ["tercera"], ["cuarta"], ["quinta"], ["sexta"]],
        ordinalSuffixes: [".a", "a", ".o", "o"],
        distanceBefore: ["en", "a", "dentro de", "después de"]
    )
}
