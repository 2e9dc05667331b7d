@testable import Guidance

/// One instruction as a navigation app writes it, and what it means.
struct Instruction: CustomStringConvertible {
    let text: String
    let maneuver: Maneuver
    var exit: Int? = nil
    /// Metres of the distance in the text, nil when it has none.
    var metres: Int? = nil

    init(_ text: String, _ maneuver: Maneuver, exit: Int? = nil, metres: Int? = nil) {
        self.text = text
        self.maneuver = maneuver
        self.exit = exit
        self.metres = metres
    }

    var description: String { text }
}

/// Per language: turn, keep, sharp, U-turn, roundabout with its exit,
/// arrive, continue, merge, exit; with and without distances, in the
/// phrasings of Google Maps, Apple Maps and Waze.
enum InstructionTables {
    static let english: [Instruction] = [
        Instruction("In 350 m, turn left onto Market Street", .left, metres: 350),
        Instruction("Turn right onto 5th Ave", .right),
        Instruction("In 0.5 mi, slight left toward I-280 S", .slightLeft, metres: 805),
        Instruction("Keep right at the fork", .slightRight),
        Instruction("Bear left onto Oak Rd", .slightLeft),
        Instruction("Sharp right onto Lombard St", .sharpRight),
        Instruction("In 500 ft, sharp left", .sharpLeft, metres: 152),
        Instruction("Make a U-turn at Main St", .uTurn),
        Instruction("In 800 ft, make a U-Turn", .uTurn, metres: 244),
        Instruction("At the roundabout, take the 2nd exit onto Main St", .roundabout, exit: 2),
        Instruction("In 300 yd, at the roundabout, take the third exit", .roundabout, exit: 3, metres: 274),
        Instruction("Enter the traffic circle and take the 1st exit", .roundabout, exit: 1),
        Instruction("Continue straight onto Highway 1", .straight),
        Instruction("Head north on Castro St toward 18th St", .straight),
        Instruction("Continue for 12 km", .straight, metres: 12000),
        Instruction("Merge onto I-80 E", .merge),
        Instruction("In 1 mi, take the exit on the right toward Downtown", .exitRight, metres: 1609),
        Instruction("Take the exit on the left onto CA-1 S", .exitLeft),
        Instruction("Arrive at 1 Infinite Loop", .arrive),
        Instruction("Your destination is on the right", .arrive),
        Instruction("You have arrived", .arrive),
    ]

    static let spanish: [Instruction] = [
        Instruction("En 200 m, gira a la izquierda hacia Calle de Alcalá", .left, metres: 200),
        Instruction("Gira a la derecha en la Gran Vía", .right),
        Instruction("Mantente a la izquierda en la bifurcación", .slightLeft),
        Instruction("A 1,5 km, gira ligeramente a la derecha hacia M-30", .slightRight, metres: 1500),
        Instruction("Gira bruscamente a la izquierda", .sharpLeft),
        Instruction("Haz un cambio de sentido", .uTurn),
        Instruction("En la rotonda, toma la 2.ª salida en dirección Calle Mayor", .roundabout, exit: 2),
        Instruction("En la glorieta, toma la tercera salida", .roundabout, exit: 3),
        Instruction("Continúa recto por la A-6", .straight),
        Instruction("Incorpórate a la autopista AP-7", .merge),
        Instruction("Toma la salida a la derecha hacia Valencia", .exitRight),
        Instruction("Has llegado a tu destino", .arrive),
        Instruction("El destino está a la izquierda", .arrive),
    ]

    static let german: [Instruction] = [
        Instruction("In 300 m links abbiegen auf Leopoldstraße", .left, metres: 300),
        Instruction("Biegen Sie rechts ab auf die Hauptstraße", .right),
        Instruction("Links halten Richtung A9", .slightLeft),
        Instruction("Nach 1,2 km leicht rechts abbiegen", .slightRight, metres: 1200),
        Instruction("Scharf links abbiegen", .sharpLeft),
        Instruction("Bitte wenden", .uTurn),
        Instruction("Im Kreisverkehr die 2. Ausfahrt nehmen auf B27", .roundabout, exit: 2),
        Instruction("Im Kreisverkehr die dritte Ausfahrt nehmen", .roundabout, exit: 3),
        Instruction("Geradeaus weiterfahren auf der B2", .straight),
        Instruction("Auf die A8 auffahren", .merge),
        Instruction("Ausfahrt rechts nehmen Richtung Stuttgart", .exitRight),
        Instruction("Sie haben Ihr Ziel erreicht", .arrive),
        Instruction("Das Ziel befindet sich links", .arrive),
    ]

    static let french: [Instruction] = [
        Instruction("Dans 150 m, tournez à gauche sur Rue de Rivoli", .left, metres: 150),
        Instruction("Tournez à droite sur Avenue des Champs-Élysées", .right),
        Instruction("Serrez à gauche à l'embranchement", .slightLeft),
        Instruction("Tournez légèrement à droite", .slightRight),
        Instruction("Tournez franchement à gauche", .sharpLeft),
        Instruction("Faites demi-tour", .uTurn),
        Instruction("Au rond-point, prenez la 3e sortie sur D906", .roundabout, exit: 3),
        Instruction("Au rond-point, prenez la première sortie", .roundabout, exit: 1),
        Instruction("Continuez tout droit sur N7", .straight),
        Instruction("Rejoignez A6", .merge),
        Instruction("Dans 2 km, prenez la sortie à droite vers Lyon", .exitRight, metres: 2000),
        Instruction("Votre destination se trouve sur la droite", .arrive),
    ]

    static let italian: [Instruction] = [
        Instruction("Tra 400 m svolta a sinistra in Via Roma", .left, metres: 400),
        Instruction("Svolta a destra in Corso Buenos Aires", .right),
        Instruction("Mantieni la sinistra al bivio", .slightLeft),
        Instruction("Svolta leggermente a destra", .slightRight),
        Instruction("Svolta decisamente a sinistra", .sharpLeft),
        Instruction("Fai inversione a U", .uTurn),
        Instruction("Alla rotonda prendi la 2ª uscita", .roundabout, exit: 2),
        Instruction("Alla rotatoria prendi la seconda uscita", .roundabout, exit: 2),
        Instruction("Continua dritto su SS1", .straight),
        Instruction("Immettiti su A1", .merge),
        Instruction("Prendi l'uscita a destra verso Bologna", .exitRight),
        Instruction("La destinazione è sulla sinistra", .arrive),
    ]

    static let portuguese: [Instruction] = [
        Instruction("Em 200 m, vire à esquerda na Rua Augusta", .left, metres: 200),
        Instruction("Vire à direita na Avenida Paulista", .right),
        Instruction("Mantenha-se à esquerda", .slightLeft),
        Instruction("Vire ligeiramente à direita", .slightRight),
        Instruction("Curva acentuada à esquerda", .sharpLeft),
        Instruction("Faça o retorno", .uTurn),
        Instruction("Na rotatória, pegue a 1ª saída", .roundabout, exit: 1),
        Instruction("Na rotunda, saia na terceira saída", .roundabout, exit: 3),
        Instruction("Siga em frente na BR-116", .straight),
        Instruction("Em 2,5 km, pegue a saída à direita", .exitRight, metres: 2500),
        Instruction("O destino está à direita", .arrive),
    ]

    static let dutch: [Instruction] = [
        Instruction("Over 250 m sla linksaf naar de Damrak", .left, metres: 250),
        Instruction("Sla rechtsaf naar Kalverstraat", .right),
        Instruction("Houd links aan bij de splitsing", .slightLeft),
        Instruction("Houd rechts aan", .slightRight),
        Instruction("Scherpe bocht naar links", .sharpLeft),
        Instruction("Keer om", .uTurn),
        Instruction("Neem op de rotonde de 2e afslag", .roundabout, exit: 2),
        Instruction("Ga verder op de A10", .straight),
        Instruction("Voeg in op de A2", .merge),
        Instruction("Neem afrit links richting Utrecht", .exitLeft),
        Instruction("Uw bestemming bevindt zich aan de linkerkant", .arrive),
    ]

    static let polish: [Instruction] = [
        Instruction("Za 300 m skręć w lewo w ulicę Marszałkowską", .left, metres: 300),
        Instruction("Skręć w prawo w Aleje Jerozolimskie", .right),
        Instruction("Trzymaj się lewej", .slightLeft),
        Instruction("Skręć lekko w prawo", .slightRight),
        Instruction("Skręć ostro w lewo", .sharpLeft),
        Instruction("Zawróć", .uTurn),
        Instruction("Na rondzie wybierz 2. zjazd", .roundabout, exit: 2),
        Instruction("Na rondzie zjedź trzecim zjazdem", .roundabout, exit: 3),
        Instruction("Jedź prosto przez 2 km", .straight, metres: 2000),
        Instruction("Zjedź zjazdem po prawej", .exitRight),
        Instruction("Cel podróży znajduje się po lewej", .arrive),
    ]

    static let turkish: [Instruction] = [
        Instruction("200 m sonra sola dönün", .left, metres: 200),
        Instruction("Sağa dönün, İstiklal Caddesi", .right),
        Instruction("Hafif sola dönün", .slightLeft),
        Instruction("Sağda kalın", .slightRight),
        Instruction("Keskin sola dönün", .sharpLeft),
        Instruction("U dönüşü yapın", .uTurn),
        Instruction("Döner kavşakta 2. çıkıştan çıkın", .roundabout, exit: 2),
        Instruction("Düz devam edin", .straight),
        Instruction("1,2 km sonra sağdaki çıkışa girin", .exitRight, metres: 1200),
        Instruction("Hedefiniz solda", .arrive),
    ]

    static let japanese: [Instruction] = [
        Instruction("200 m 先を左折です", .left, metres: 200),
        Instruction("300メートル先、右折して国道1号線に入ります", .right, metres: 300),
        Instruction("斜め左方向に進みます", .slightLeft),
        Instruction("右方向です", .slightRight),
        Instruction("鋭角に左折です", .sharpLeft),
        Instruction("Uターンしてください", .uTurn),
        Instruction("ロータリーで2番目の出口に進みます", .roundabout, exit: 2),
        Instruction("環状交差点で3つ目の出口を出ます", .roundabout, exit: 3),
        Instruction("道なりに直進です", .straight),
        Instruction("首都高速に合流します", .merge),
        Instruction("1.5キロ先、左側の出口を出ます", .exitLeft, metres: 1500),
        Instruction("目的地は右側です", .arrive),
    ]

    static let chineseSimplified: [Instruction] = [
        Instruction("前方200米左转进入长安街", .left, metres: 200),
        Instruction("右转进入中山路", .right),
        Instruction("靠左行驶", .slightLeft),
        Instruction("向右前方行驶", .slightRight),
        Instruction("向左急转", .sharpLeft),
        Instruction("掉头", .uTurn),
        Instruction("进入环岛，从第2个出口驶出", .roundabout, exit: 2),
        Instruction("在环岛从第三出口离开", .roundabout, exit: 3),
        Instruction("直行1.5公里", .straight, metres: 1500),
        Instruction("汇入京港澳高速", .merge),
        Instruction("500米后从右侧出口驶出", .exitRight, metres: 500),
        Instruction("目的地在左侧", .arrive),
    ]

    static let chineseTraditional: [Instruction] = [
        Instruction("200 公尺後左轉進入忠孝東路", .left, metres: 200),
        Instruction("右轉進入中山北路", .right),
        Instruction("靠左行駛", .slightLeft),
        Instruction("向右前方行駛", .slightRight),
        Instruction("向左急轉", .sharpLeft),
        Instruction("迴轉", .uTurn),
        Instruction("進入圓環，從第2個出口離開", .roundabout, exit: 2),
        Instruction("繼續直行", .straight),
        Instruction("匯入國道一號", .merge),
        Instruction("從左側出口駛出", .exitLeft),
        Instruction("目的地在右側", .arrive),
    ]

    static let korean: [Instruction] = [
        Instruction("200m 앞에서 좌회전", .left, metres: 200),
        Instruction("300미터 후 우회전하세요", .right, metres: 300),
        Instruction("왼쪽 방향으로 진행하세요", .slightLeft),
        Instruction("오른쪽 방향입니다", .slightRight),
        Instruction("급좌회전하세요", .sharpLeft),
        Instruction("유턴하세요", .uTurn),
        Instruction("회전교차로에서 2번째 출구로 나가세요", .roundabout, exit: 2),
        Instruction("로터리에서 세 번째 출구로 나가세요", .roundabout, exit: 3),
        Instruction("1.2킬로미터 직진", .straight, metres: 1200),
        Instruction("고속도로에 합류하세요", .merge),
        Instruction("오른쪽 출구로 나가세요", .exitRight),
        Instruction("목적지가 왼쪽에 있습니다", .arrive),
    ]

    static let arabic: [Instruction] = [
        Instruction("بعد ٢٠٠ م، انعطف يسارًا إلى شارع التحرير", .left, metres: 200),
        Instruction("انعطف يمينًا إلى طريق الملك فهد", .right),
        Instruction("ابقَ على اليسار", .slightLeft),
        Instruction("انعطف قليلاً إلى اليمين", .slightRight),
        Instruction("انعطف بحدة إلى اليسار", .sharpLeft),
        Instruction("استدر للخلف", .uTurn),
        Instruction("عند الدوار، اسلك المخرج الثاني", .roundabout, exit: 2),
        Instruction("في الدوار، اسلك المخرج ٣", .roundabout, exit: 3),
        Instruction("استمر على الطريق الدائري", .straight),
        Instruction("اندمج في الطريق السريع", .merge),
        Instruction("بعد ١٫٥ كم، اسلك المخرج على اليمين", .exitRight, metres: 1500),
        Instruction("الوجهة على اليسار", .arrive),
    ]

    static let all: [(String, [Instruction])] = [
        ("English", english), ("Spanish", spanish), ("German", german), ("French", french), ("Italian", italian),
        ("Portuguese", portuguese), ("Dutch", dutch), ("Polish", polish), ("Turkish", turkish), ("Japanese", japanese),
        ("Chinese (Simplified)", chineseSimplified), ("Chinese (Traditional)", chineseTraditional), ("Korean", korean),
        ("Arabic", arabic),
    ]
}
