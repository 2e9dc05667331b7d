import Foundation
import Testing
import Display
import Graphics
@testable import Screens
import DisplaySettings

/// Renders every screen and compares with the committed reference PNGs in
/// Golden/. `UPDATE_GOLDEN=1 swift test --filter GoldenImageTests` rewrites them.
@Suite(.serialized) struct GoldenImageTests {
    static let update = ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1"
    static let sizes = [Size(width: 800, height: 480), Size(width: 1280, height: 720)]

    /// Compares with the reference: a pixel differs when a channel is off by
    /// more than 40 (anti-aliasing of another FreeType build); at most 0.5% may.
    static func check(_ canvas: Canvas, name: String) {
        let path = TestFonts.goldenDir + "/\(name).png"
        if update {
            let err = canvas.pixels.withUnsafeBufferPointer {
                PNGFile.write(path: path, width: canvas.width, height: canvas.height, stride: canvas.width, pixels: $0)
            }
            #expect(err == nil, "writing \(path): \(err ?? "")")
            return
        }
        guard let ref = PNGFile.read(path: path) else {
            Issue.record("missing reference \(path): run with UPDATE_GOLDEN=1")
            return
        }
        #expect(ref.width == canvas.width && ref.height == canvas.height, "\(name): size differs")
        guard ref.width == canvas.width && ref.height == canvas.height else { return }
        var differing = 0
        func channel(_ v: UInt32, _ shift: UInt32) -> Int { Int((v >> shift) & 0xFF) }
        for i in 0..<ref.pixels.count {
            let a = ref.pixels[i], b = canvas.pixels[i]
            if a & 0xFFFFFF == b & 0xFFFFFF { continue }
            if abs(channel(a, 0) - channel(b, 0)) > 40 || abs(channel(a, 8) - channel(b, 8)) > 40
                || abs(channel(a, 16) - channel(b, 16)) > 40 {
                differing += 1
            }
        }
        let allowed = ref.pixels.count / 200
        #expect(differing <= allowed, "\(name): \(differing) pixels differ (allowed \(allowed))")
        if differing > allowed {
            let out = NSTemporaryDirectory() + "\(name)-actual.png"
            _ = canvas.pixels.withUnsafeBufferPointer {
                PNGFile.write(path: out, width: canvas.width, height: canvas.height, stride: canvas.width, pixels: $0)
            }
            print("actual image written to \(out)")
        }
    }

    @Test(arguments: Fixtures.all.map { $0.0 })
    func screen(_ name: String) throws {
        let fonts = try TestFonts.load()
        let model = try #require(Fixtures.all.first { $0.0 == name }?.1)
        for size in Self.sizes {
            let canvas = Canvas(size: size)
            let renderer = ScreenRenderer(fonts: fonts)
            renderer.render(model, on: canvas)
            Self.check(canvas, name: "\(name)-\(size.width)x\(size.height)")
            TextPlacement.verify(renderer: renderer, canvas: canvas, model: model, label: "\(name) \(size.width)x\(size.height)")
        }
    }

    /// A portrait layout drawn for a panel mounted turned by 90 degrees:
    /// the golden image is what lands in the 800x480 framebuffer.
    @Test func rotatedPortrait() throws {
        let fonts = try TestFonts.load()
        let model = Fixtures.cardsNight()
        let rotation = Rotation.clockwise90
        let physical = Size(width: 800, height: 480)
        let logical = rotation.logicalSize(physical: physical)
        #expect(logical == Size(width: 480, height: 800))
        let canvas = Canvas(size: logical)
        let renderer = ScreenRenderer(fonts: fonts)
        renderer.render(model, on: canvas)
        TextPlacement.verify(renderer: renderer, canvas: canvas, model: model, label: "portrait")
        let panel = Canvas(size: physical)
        panel.pixels.withUnsafeMutableBufferPointer { buf in
            canvas.present(canvas.bounds, rotation: rotation, to: buf.baseAddress!, dstStride: physical.width, format: XRGB8888.self)
        }
        // The logical top-left pixel lands at the physical top-right.
        #expect(panel.pixel(x: 799, y: 0) == canvas.pixel(x: 0, y: 0))
        #expect(panel.pixel(x: 0, y: 479) == canvas.pixel(x: 479, y: 799))
        Self.check(panel, name: "cards-night-portrait-rotated90")
    }
}
