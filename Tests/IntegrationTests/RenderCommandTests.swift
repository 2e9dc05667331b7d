import Display
import Foundation
import Testing

/// `headunit render`: the maneuver sheet the aarch64 smoke test compares
/// with Tests/ScreensTests/Golden/maneuvers.png.
@Suite struct RenderCommandTests {
    @Test func writesTheManeuverSheetAsTheReference() throws {
        let out = Paths.temporaryDirectory("render").appendingPathComponent("maneuvers.png")
        let run = try HeadUnitRun.run(["render", "--out", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("384x384, 16 maneuvers"))
        // Pixels, not bytes: how libpng compresses them is not the point.
        let written = try #require(PNGFile.read(path: out.path))
        let reference = try #require(PNGFile.read(path: Paths.packageRoot.appendingPathComponent("Tests/ScreensTests/Golden/maneuvers.png").path))
        #expect(written.width == reference.width && written.height == reference.height)
        #expect(written.pixels == reference.pixels)
    }

    @Test func needsAnOutputFile() throws {
        let run = try HeadUnitRun.run(["render"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("render needs --out FILE.png"))
    }
}
