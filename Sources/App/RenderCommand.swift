import Display
import Graphics
import Platform
import Screens

/// `headunit render --out FILE.png [--tile N]`: draws every maneuver arrow
/// into a PNG and exits. A diagnostic: the firmware's own drawing, off the
/// screen, to compare with the host build's (scripts/build-aarch64 --smoke
/// compares it with Tests/ScreensTests/Golden/maneuvers.png).
enum RenderCommand {
    static func run(_ args: Arguments) throws(Arguments.UsageError) -> Int32 {
        guard let path = args.options["out"] else { throw Arguments.UsageError(description: "render needs --out FILE.png") }
        let tile = try args.int("tile", default: 96)
        guard tile >= 16 && tile <= 1024 else { throw Arguments.UsageError(description: "--tile: 16 to 1024 pixels") }
        let canvas = Canvas(size: ManeuverSheet.size(tile: tile))
        ManeuverSheet.draw(on: canvas, tile: tile)
        let error = canvas.pixels.withUnsafeBufferPointer {
            PNGFile.write(path: path, width: canvas.width, height: canvas.height, stride: canvas.width, pixels: $0)
        }
        if let error {
            StandardErrorLog.line("headunit: \(path): \(error)")
            return 1
        }
        print("\(path): \(canvas.width)x\(canvas.height), \(ManeuverSheet.tiles.count) maneuvers")
        return 0
    }
}
