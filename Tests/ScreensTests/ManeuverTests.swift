import Testing
@testable import Screens

@Suite struct ManeuverTests {
    @Test(arguments: [
        ("Turn left onto Market Street", Maneuver.left),
        ("Turn right onto 5th Ave", .right),
        ("Slight left toward I-280 S", .slightLeft),
        ("Keep right at the fork", .slightRight),
        ("Bear left onto Oak Rd", .slightLeft),
        ("Sharp right onto Lombard St", .sharpRight),
        ("Sharp left", .sharpLeft),
        ("Make a U-turn at Main St", .uTurn),
        ("Make a U-Turn", .uTurn),
        ("At the roundabout, take the 2nd exit onto Main St", .roundabout),
        ("Enter the traffic circle", .roundabout),
        ("Continue straight onto Highway 1", .straight),
        ("Head north on Castro St", .straight),
        ("Your destination is on the right", .arrive),
        ("Arrive at 1 Infinite Loop", .arrive),
        ("Take exit 23B toward Downtown", .slightRight),
        ("Biegen Sie links ab", .neutral),
        ("向左转", .neutral),
        ("", .neutral),
    ])
    func classifies(_ text: String, _ expected: Maneuver) {
        #expect(Maneuver.classify(text) == expected, "\(text)")
    }

    @Test func splitsDistanceFromTheInstruction() {
        let a = NavigationSummary(NavigationInstruction(title: "350 m", message: "Turn left onto Market Street", app: "com.google.Maps"))
        #expect(a.distance == "350" && a.unit == "m")
        #expect(a.primary == "Turn left onto Market Street" && a.secondary == "")
        #expect(a.maneuver == .left && a.app == "Google Maps")

        let b = NavigationSummary(NavigationInstruction(title: "In 0.5 mi", message: "At the roundabout, take the 2nd exit", app: "com.apple.Maps"))
        #expect(b.distance == "0.5" && b.unit == "mi" && b.primary == "At the roundabout, take the 2nd exit")

        let c = NavigationSummary(NavigationInstruction(title: "Turn right onto Oak St", message: "in 1,2 km, then keep left", app: "com.waze.iphone"))
        #expect(c.distance == "1,2" && c.unit == "km")
        #expect(c.primary == "Turn right onto Oak St" && c.secondary == "then keep left")

        let d = NavigationSummary(NavigationInstruction(title: "Turn left in 300 ft, then right", message: "", app: "x"))
        #expect(d.distance == "300" && d.unit == "ft" && d.primary == "Turn left, then right")

        // Numbers that are not distances stay in the text.
        let e = NavigationSummary(NavigationInstruction(title: "Take exit 23B", message: "Route 66 mileage", app: "x"))
        #expect(e.distance == "" && e.primary == "Take exit 23B" && e.secondary == "Route 66 mileage")
    }
}
