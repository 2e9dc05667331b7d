import Foundation
import Testing

/// `headunit render`: the maneuver sheet the aarch64 smoke test compares
/// with Tests/ScreensTests/Golden/maneuvers.png.
@Suite struct RenderCommandTests {
    @Test func writesTheManeuverSheetAsTheReference() throws {
        let out = Paths.temporaryDirectory("render").appendingPathComponent("maneuvers.png")
        let run = try HeadUnitRun.run(["render", "--out", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("384x288, 11 maneuvers"))
        let written = try Data(contentsOf: out)
        let reference = try Data(contentsOf: Paths.packageRoot.appendingPathComponent("Tests/ScreensTests/Golden/maneuvers.png"))
        // The same libpng and the same pixels on the host: the same bytes.
        #expect(written == reference)
    }

    @Test func needsAnOutputFile() throws {
        let run = try HeadUnitRun.run(["render"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("render needs --out FILE.png"))
    }
}
