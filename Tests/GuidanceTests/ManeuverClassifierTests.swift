import Testing
@testable import Guidance

@Suite struct ManeuverClassifierTests {
    @Test(arguments: InstructionTables.all.map { $0.0 })
    func readsEveryLanguage(_ language: String) throws {
        let table = try #require(InstructionTables.all.first { $0.0 == language }?.1)
        for i in table {
            let g = Guidance(title: "", message: i.text)
            #expect(g.maneuver == i.maneuver, "\(language): \(i.text)")
            #expect(g.roundaboutExit == i.exit, "\(language): \(i.text): exit")
            #expect(g.distance?.metres == i.metres, "\(language): \(i.text): metres")
        }
    }

    /// Every language's table covers turn, keep, sharp, U-turn, a
    /// roundabout with its exit, arrival, continue and exit.
    @Test func everyLanguageHasEveryKindOfInstruction() {
        for (language, table) in InstructionTables.all {
            let kinds = Set(table.map { $0.maneuver })
            for needed: Maneuver in [.uTurn, .roundabout, .arrive, .straight] {
                #expect(kinds.contains(needed), "\(language) has no \(needed.eventName)")
            }
            #expect(kinds.contains(.left) && kinds.contains(.right), "\(language): turns")
            #expect(kinds.contains(.slightLeft) || kinds.contains(.slightRight), "\(language): keep")
            #expect(kinds.contains(.sharpLeft) || kinds.contains(.sharpRight), "\(language): sharp")
            #expect(kinds.contains(.exitLeft) || kinds.contains(.exitRight), "\(language): exit")
            #expect(table.contains { $0.maneuver == .roundabout && $0.exit != nil }, "\(language): roundabout exit")
            #expect(table.contains { $0.metres != nil }, "\(language): a distance")
        }
    }

    /// A direction said in passing is no turn.
    @Test(arguments: [
        "Destination will be on the left",
        "Your destination is on the right",
        "In 200 m, your destination is on the left",
        "El destino está a la izquierda",
        "Das Ziel befindet sich links",
        "La destination est sur votre gauche",
        "Il traguardo: la destinazione è a destra",
        "目的地は左側です",
        "目的地在右侧",
        "목적지는 오른쪽에 있습니다",
        "الوجهة على اليمين",
    ])
    func arrivalWithADirectionIsAnArrival(_ text: String) {
        #expect(ManeuverClassifier.classify(text).maneuver == .arrive, "\(text)")
    }

    /// The first phrase decides: a turn before an arrival note is a turn.
    @Test func theFirstPhraseDecides() {
        #expect(ManeuverClassifier.classify("Turn left onto Main St. Destination will be on the right").maneuver == .left)
        #expect(ManeuverClassifier.classify("Turn right onto Left Bank Rd").maneuver == .right)
        #expect(ManeuverClassifier.classify("Continue for 2 km, then turn left").maneuver == .straight)
        #expect(ManeuverClassifier.classify("Keep left to take exit 12").maneuver == .slightLeft)
    }

    /// Text that is not understood gets no arrow rather than a wrong one.
    @Test(arguments: [
        "", " ", "Google Maps", "Calle Derecha 12", "Leftover Lane", "Rightmost Road", "Take exit 23B toward Downtown",
        "Route 66 mileage", "Bright Street", "droitier", "ŁŁŁŁ", "🚗🚗", "\u{0}\u{1}", "١٢٣", "左", "오른",
        "Lorem ipsum dolor sit amet", "Привет мир", "שלום עולם", "नमस्ते दुनिया",
    ])
    func garbageIsNeutral(_ text: String) {
        #expect(ManeuverClassifier.classify(text).maneuver == .neutral, "\(text)")
    }

    @Test func capitalsAndAccentsDoNotMatter() {
        #expect(ManeuverClassifier.classify("TURN LEFT").maneuver == .left)
        #expect(ManeuverClassifier.classify("GIRA A LA IZQUIERDA").maneuver == .left)
        #expect(ManeuverClassifier.classify("tournez a gauche").maneuver == .left)
        #expect(ManeuverClassifier.classify("DÖNER KAVŞAKTA 2. ÇIKIŞTAN ÇIKIN") == ManeuverReading(maneuver: .roundabout, roundaboutExit: 2))
        #expect(ManeuverClassifier.classify("SKRĘĆ W PRAWO").maneuver == .right)
        // Decomposed accents (e + U+0301) read like the composed ones.
        #expect(ManeuverClassifier.classify("Continu\u{65}\u{301}").maneuver == .straight)
        // Full-width letters and digits, as Japanese text has them.
        #expect(ManeuverClassifier.classify("ロータリーで２番目の出口").roundaboutExit == 2)
        #expect(ManeuverClassifier.classify("Ｕターン").maneuver == .uTurn)
    }

    @Test func roundaboutExitNumbers() {
        func exit(_ s: String) -> Int? { ManeuverClassifier.classify(s).roundaboutExit }
        #expect(exit("At the roundabout, take the 4th exit") == 4)
        #expect(exit("At the roundabout, take the fifth exit onto A4") == 5)
        #expect(exit("At the roundabout, take exit 2") == 2)
        #expect(exit("At the roundabout, continue straight") == nil)
        #expect(exit("In 1.2 km at the roundabout take the 2nd exit") == 2)
        #expect(exit("At the roundabout take the 99th exit") == nil)
        #expect(exit("Im Kreisverkehr die zweite Ausfahrt nehmen") == 2)
        #expect(exit("Au rond-point, prenez la 1re sortie") == 1)
        #expect(exit("在环岛处从第二个出口离开") == 2)
        #expect(exit("회전교차로에서 첫 번째 출구") == 1)
        #expect(exit("عند الدوار، اسلك المخرج الأول") == 1)
    }

    /// The title names the roundabout, the message its exit.
    @Test func exitFromTheMessage() {
        let g = Guidance(title: "Roundabout", message: "Take the 3rd exit onto Oak St")
        #expect(g.maneuver == .roundabout && g.roundaboutExit == 3)
    }
}
