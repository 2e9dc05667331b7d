import Testing
@testable import Guidance

@Suite struct DistanceTests {
    @Test(arguments: [
        ("350 m", 350, "350", DistanceUnit.metres),
        ("In 0.5 mi", 805, "0.5", .miles),
        ("1,5 km", 1500, "1,5", .kilometres),
        ("in 1,2 km, then keep left", 1200, "1,2", .kilometres),
        ("500 ft", 152, "500", .feet),
        ("1,200 ft", 366, "1,200", .feet),
        ("300 yd", 274, "300", .yards),
        ("2 miles", 3219, "2", .miles),
        ("250 metros", 250, "250", .metres),
        ("3 Kilometer", 3000, "3", .kilometres),
        ("200m", 200, "200", .metres),
        ("1.5km", 1500, "1.5", .kilometres),
        ("200 м", 200, "200", .metres),
        ("2,5 км", 2500, "2,5", .kilometres),
        ("200メートル先", 200, "200", .metres),
        ("1.5キロ先", 1500, "1.5", .kilometres),
        ("前方200米", 200, "200", .metres),
        ("2.5公里后", 2500, "2.5", .kilometres),
        ("300公尺後", 300, "300", .metres),
        ("300미터 후", 300, "300", .metres),
        ("2킬로미터", 2000, "2", .kilometres),
        ("بعد ٢٠٠ م", 200, "200", .metres),
        ("بعد ١٫٥ كم", 1500, "1.5", .kilometres),
        ("بعد 300 متر", 300, "300", .metres),
        ("\u{200F}٢٠٠\u{200F} م", 200, "200", .metres),
        ("km 12", 12000, "12", .kilometres),
        ("Continue for mi 3 then exit", 4828, "3", .miles),
        ("２００ｍ先", 200, "200", .metres),
        ("In 1/2 mile, turn left", 805, "1/2", .miles),
        ("3/4 mi", 1207, "3/4", .miles),
        ("In ½ mi", 805, "½", .miles),
        ("1½ miles", 2414, "1½", .miles),
    ])
    func parses(_ text: String, _ metres: Int, _ value: String, _ unit: DistanceUnit) throws {
        let d = try #require(Distance.find(in: text), "\(text)")
        #expect(d.metres == metres, "\(text)")
        #expect(d.value == value, "\(text)")
        #expect(d.unit == unit, "\(text)")
    }

    @Test(arguments: [
        "", "Take exit 23B", "Route 66 mileage", "A9 Richtung München", "I-280 S", "Turn left", "Exit 5",
        "12345678901 m", "Take the 2nd exit", "第2出口", "1 Infinite Loop", "B27", "1/0 mi", "24/7 service",
    ])
    func findsNone(_ text: String) {
        #expect(Distance.find(in: text) == nil, "\(text)")
    }

    /// The distance and its "in", "先", "بعد" are cut from the text shown.
    @Test func cutFromTheText() {
        let a = Guidance(title: "In 350 m", message: "Turn left onto Market Street")
        #expect(a.title == "" && a.message == "Turn left onto Market Street")
        let b = Guidance(title: "Turn left in 300 ft, then right", message: "")
        #expect(b.title == "Turn left, then right")
        let c = Guidance(title: "200 m 先を左折です", message: "")
        #expect(c.title == "を左折です" || c.title == "左折です")
        let d = Guidance(title: "", message: "بعد ٢٠٠ م، انعطف يسارًا")
        #expect(d.message == "انعطف يسارًا", "\(d.message)")
        let e = Guidance(title: "Turn right onto Oak St", message: "in 1,2 km, then keep left")
        #expect(e.distance?.value == "1,2" && e.title == "Turn right onto Oak St" && e.message == "then keep left")
    }
}
