extension PhraseTable {
    /// Taiwan and Hong Kong: the words that differ from Simplified Chinese.
    static let chineseTraditional = PhraseTable(
        arrive: ["目的地", "到達", "抵達"],
        uTurn: ["迴轉", "掉頭", "調頭"],
        roundabout: ["圓環", "環島", "環形交叉", "迴旋處"],
        sharpLeft: ["向左急轉", "急左轉", "左急轉"],
        sharpRight: ["向右急轉", "急右轉", "右急轉"],
        slightLeft: ["靠左", "向左前方", "稍向左", "偏左", "靠左行駛"],
        slightRight: ["靠右", "向右前方", "稍向右", "偏右", "靠右行駛"],
        left: ["左轉", "向左轉"],
        right: ["右轉", "向右轉"],
        merge: ["匯入", "併入"],
        straight: ["直行", "繼續", "沿著", "前行"],
        exit: ["出口", "匝道", "駛出", "交流道"],
        leftSide: ["左側", "左邊", "左"],
        rightSide: ["右側", "右邊", "右"],
        ordinals: [["第一"], ["第二"], ["第三"], ["第四"], ["第五"]],
        ordinalSuffixes: ["個出口", "出口"],
        ordinalPrefixes: ["第"],
        distanceAfter: ["後", "處"]
    )
}
