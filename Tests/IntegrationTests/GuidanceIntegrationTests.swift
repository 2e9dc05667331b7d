import Foundation
import Testing

/// Google Maps in the phone's language: the simulated iPhone posts turn
/// instructions in Spanish, Japanese and Arabic, and the `notification`
/// events say which maneuver, which roundabout exit and how far
/// (docs/PROTOCOL.md §6).
@Suite(.serialized) struct GuidanceIntegrationTests {
    @Test func mapsInstructionsInThePhonesLanguage() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let session = NotificationsIntegrationTests()
        let unit = try session.pairedUnit(phone, name: "guidance")
        defer { unit.stop() }
        let cases: [(title: String, message: String, maneuver: String, exit: Int?, metres: Int?)] = [
            ("A 200 m", "Gira a la izquierda hacia Calle de Alcalá", "left", nil, 200),
            ("1,5 km", "En la rotonda, toma la 2.ª salida", "roundabout", 2, 1500),
            ("El destino está a la derecha", "Calle Mayor 12", "arrive", nil, nil),
            ("300 m 先", "ロータリーで3番目の出口に進みます", "roundabout", 3, 300),
            ("右折です", "国道1号線", "right", nil, nil),
            ("بعد ٢٠٠ م", "انعطف يمينًا إلى شارع التحرير", "right", nil, 200),
            ("بعد ١٫٥ كم", "عند الدوار، اسلك المخرج الثاني", "roundabout", 2, 1500),
        ]
        for c in cases {
            try phone.command("post_notification", ["phone": "anna", "app": "com.google.Maps", "category": "location",
                                                    "title": c.title, "message": c.message])
            let shown = try #require(unit.waitFor("notification", timeout: 20) { e in
                e["action"] as? String == "shown" && e["title"] as? String == c.title
            }, "\(c.title)")
            #expect(shown["kind"] as? String == "navigation")
            #expect(shown["maneuver"] as? String == c.maneuver, "\(c.title) \(c.message): \(shown)")
            #expect(shown["roundabout_exit"] as? Int == c.exit, "\(c.title) \(c.message): \(shown)")
            #expect(shown["distance_m"] as? Int == c.metres, "\(c.title) \(c.message): \(shown)")
            // Fields that are not known are left out, not null.
            if c.exit == nil { #expect(shown["roundabout_exit"] == nil) }
            if c.metres == nil { #expect(shown["distance_m"] == nil) }
        }
        // Music carries no guidance fields.
        try phone.command("post_notification", ["phone": "anna", "app": "com.spotify.client", "category": "entertainment",
                                                "title": "Turn left", "message": "200 m"])
        let music = try #require(unit.waitFor("notification", timeout: 20) { $0["app"] as? String == "com.spotify.client" })
        #expect(music["maneuver"] == nil && music["distance_m"] == nil)
    }
}
