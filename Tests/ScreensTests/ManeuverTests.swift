import Testing
import Guidance
@testable import Screens
import ScreenValues

/// The navigation card's reading of an instruction (the classifier itself
/// is tested in GuidanceTests).
@Suite struct ManeuverTests {
    @Test func splitsDistanceFromTheInstruction() {
        let a = NavigationSummary(NavigationInstruction(title: "350 m", message: "Turn left onto Market Street", app: "com.google.Maps"))
        #expect(a.distance == "350" && a.unit == "m")
        #expect(a.primary == "Turn left onto Market Street" && a.secondary == "")
        #expect(a.maneuver == .left && a.app == "Google Maps")

        let b = NavigationSummary(NavigationInstruction(title: "In 0.5 mi", message: "At the roundabout, take the 2nd exit", app: "com.apple.Maps"))
        #expect(b.distance == "0.5" && b.unit == "mi" && b.primary == "At the roundabout, take the 2nd exit")
        #expect(b.maneuver == .roundabout && b.roundaboutExit == 2)

        let c = NavigationSummary(NavigationInstruction(title: "Turn right onto Oak St", message: "in 1,2 km, then keep left", app: "com.waze.iphone"))
        #expect(c.distance == "1,2" && c.unit == "km")
        #expect(c.primary == "Turn right onto Oak St" && c.secondary == "then keep left")

        let d = NavigationSummary(NavigationInstruction(title: "Turn left in 300 ft, then right", message: "", app: "x"))
        #expect(d.distance == "300" && d.unit == "ft" && d.primary == "Turn left, then right")

        // Numbers that are not distances stay in the text.
        let e = NavigationSummary(NavigationInstruction(title: "Take exit 23B", message: "Route 66 mileage", app: "x"))
        #expect(e.distance == "" && e.primary == "Take exit 23B" && e.secondary == "Route 66 mileage")

        // Other languages and units: the unit is shown as its symbol.
        let f = NavigationSummary(NavigationInstruction(title: "300メートル先", message: "右折です", app: "com.google.Maps"))
        #expect(f.distance == "300" && f.unit == "m" && f.maneuver == .right && f.primary == "右折です")
    }
}
