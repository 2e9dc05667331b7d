extension PhraseTable {
    static let turkish = PhraseTable(
        arrive: ["varış", "hedefiniz", "hedefe ulaştınız", "varacaksınız", "vardınız", "hedef"],
        uTurn: ["u dönüşü", "geri dönün", "u dönüşü yapın"],
        roundabout: ["döner kavşak", "göbek", "dönel kavşak", "kavşakta"],
        sharpLeft: ["keskin sola", "sert sola"],
        sharpRight: ["keskin sağa", "sert sağa"],
        slightLeft: ["hafif sola", "soldan devam", "solda kalın", "sol şeritte kalın", "sola doğru devam", "sol tarafta kalın"],
        slightRight: ["hafif sağa", "sağdan devam", "sağda kalın", "sağ şeritte kalın", "sağa doğru devam", "sağ tarafta kalın"],
        left: ["sola dönün", "sola dön", "sola sapın"],
        right: ["sağa dönün", "sağa dön", "sağa sapın"],
        merge: ["katılın", "birleşin", "girin"],
        straight: ["düz devam", "devam edin", "devam et", "ilerleyin", "doğru gidin"],
        exit: ["çıkış", "çıkışa", "çıkıştan", "çıkın"],
        leftSide: ["sol", "soldaki", "sola", "solda"],
        rightSide: ["sağ", "sağdaki", "sağa", "sağda"],
        ordinals: [["birinci", "ilk"], ["ikinci"], ["üçüncü"], ["dördüncü"], ["beşinci"], ["altıncı"]],
        ordinalSuffixes: ["."],
        distanceAfter: ["sonra", "ileride"]
    )
}
