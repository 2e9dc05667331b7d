extension PhraseTable {
    static let japanese = PhraseTable(
        arrive: ["目的地", "到着"],
        uTurn: ["uターン", "転回"],
        roundabout: ["ロータリー", "環状交差点", "ラウンドアバウト"],
        sharpLeft: ["鋭角に左", "大きく左", "急な左"],
        sharpRight: ["鋭角に右", "大きく右", "急な右"],
        slightLeft: ["斜め左", "左方向", "左寄り", "左側を進", "左車線を維持"],
        slightRight: ["斜め右", "右方向", "右寄り", "右側を進", "右車線を維持"],
        left: ["左折", "左に曲が"],
        right: ["右折", "右に曲が"],
        merge: ["合流"],
        straight: ["直進", "道なり", "そのまま進", "進みます", "に向かいます"],
        exit: ["出口", "ランプ"],
        leftSide: ["左"],
        rightSide: ["右"],
        ordinals: [["1つ目", "一つ目", "最初の"], ["2つ目", "二つ目"], ["3つ目", "三つ目"], ["4つ目", "四つ目"], ["5つ目", "五つ目"]],
        ordinalSuffixes: ["番目", "つ目", "番出口"],
        ordinalPrefixes: ["第"],
        distanceAfter: ["先", "先で", "先を"]
    )
}
