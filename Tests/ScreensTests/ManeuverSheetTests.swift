import Testing
import Graphics
import Guidance
@testable import Screens

/// The sheet of every maneuver arrow that `headunit render` writes. The
/// aarch64 smoke test (scripts/build-aarch64 --smoke) compares the
/// firmware's rendering with the same reference, Golden/maneuvers.png.
@Suite(.serialized) struct ManeuverSheetTests {
    @Test func matchesTheReference() {
        let canvas = Canvas(size: ManeuverSheet.size(tile: 96))
        ManeuverSheet.draw(on: canvas, tile: 96)
        GoldenImageTests.check(canvas, name: "maneuvers")
    }

    /// Each arrow's ink stays inside its tile's icon box: an arrow built from
    /// the wrong points (the firmware once drew a V under the turn arrows)
    /// spills out or leaves the box empty.
    @Test func everyArrowHasInkOnItsTile() {
        let tile = 96
        let canvas = Canvas(size: ManeuverSheet.size(tile: tile))
        ManeuverSheet.draw(on: canvas, tile: tile)
        let white = Color(rgb: 0xFFFFFF).pixel
        for i in ManeuverSheet.tiles.indices {
            let cell = Rect(x: (i % ManeuverSheet.columns) * tile, y: (i / ManeuverSheet.columns) * tile, width: tile, height: tile)
            var ink = 0
            for y in cell.y..<cell.maxY { for x in cell.x..<cell.maxX where canvas.pixel(x: x, y: y) == white { ink += 1 } }
            #expect(ink > tile * tile / 20, "\(ManeuverSheet.tiles[i].maneuver.eventName) \(ManeuverSheet.tiles[i].exit ?? 0): \(ink) white pixels")
        }
    }
}
