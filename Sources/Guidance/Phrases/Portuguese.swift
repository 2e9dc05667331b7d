extension PhraseTable {
    /// Portuguese of Brazil and of Portugal.
    static let portuguese = PhraseTable(
        arrive: ["destino", "você chegou", "voce chegou", "chegou", "chegada"],
        uTurn: ["faça o retorno", "faca o retorno", "retorno", "inversão de marcha", "inversao de marcha", "meia volta"],
        roundabout: ["rotatória", "rotatoria", "rotunda", "balão"],
        sharpLeft: ["curva acentuada à esquerda", "vire acentuadamente à esquerda", "acentuadamente à esquerda"],
        sharpRight: ["curva acentuada à direita", "vire acentuadamente à direita", "acentuadamente à direita"],
        slightLeft: ["mantenha se à esquerda", "mantenha a esquerda", "levemente à esquerda", "ligeiramente à esquerda",
                     "curva suave à esquerda", "siga pela esquerda", "mantenha-se à esquerda"],
        slightRight: ["mantenha se à direita", "mantenha a direita", "levemente à direita", "ligeiramente à direita",
                      "curva suave à direita", "siga pela direita", "mantenha-se à direita"],
        left: ["vire à esquerda", "vire a esquerda", "virar à esquerda", "volte à esquerda", "curve à esquerda"],
        right: ["vire à direita", "vire a direita", "virar à direita", "volte à direita", "curve à direita"],
        merge: ["entre na", "entre no", "integre se", "convergir"],
        straight: ["continue", "siga em frente", "em frente", "siga", "prossiga", "dirija se"],
        exit: ["saída", "saida", "pegue a saída", "acesso"],
        leftSide: ["esquerda"],
        rightSide: ["direita"],
        ordinals: [["primeira"], ["segunda"], ["terceira"], ["quarta"], ["quinta"], ["sexta"]],
        ordinalSuffixes: ["a", ".a", "o"],
        distanceBefore: ["em", "daqui a", "após", "apos"]
    )
}
