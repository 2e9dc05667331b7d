extension PhraseTable {
    static let chineseSimplified = PhraseTable(
        arrive: ["目的地", "到达", "已到达"],
        uTurn: ["掉头", "调头", "回转"],
        roundabout: ["环岛", "转盘", "环形交叉"],
        sharpLeft: ["向左急转", "急左转", "左急转"],
        sharpRight: ["向右急转", "急右转", "右急转"],
        slightLeft: ["靠左", "向左前方", "稍向左", "朝左前方", "偏左"],
        slightRight: ["靠右", "向右前方", "稍向右", "朝右前方", "偏右"],
        left: ["左转", "向左转"],
        right: ["右转", "向右转"],
        merge: ["汇入", "并入"],
        straight: ["直行", "继续", "沿", "前行"],
        exit: ["出口", "匝道", "驶出"],
        leftSide: ["左侧", "左边", "左"],
        rightSide: ["右侧", "右边", "右"],
        ordinals: [["第一"], ["第二"], ["第三"], ["第四"], ["第五"]],
        ordinalSuffixes: ["个出口", "出口"],
        ordinalPrefixes: ["第"],
        distanceAfter: ["后", "处"]
    )
}
