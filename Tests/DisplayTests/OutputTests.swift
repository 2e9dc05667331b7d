import Foundation
import Testing
import BluetoothCore
import Graphics
@testable import Display

@Suite(.serialized) struct OutputTests {
    func tempDir() -> String {
        let d = NSTemporaryDirectory() + "display-test-\(UUID().uuidString)"
        return d
    }

    func sampleCanvas(_ size: Size) -> Canvas {
        let c = Canvas(size: size, fill: Color(rgb: 0x102030))
        c.fill(Rect(x: 0, y: 0, width: 10, height: 5), Color(rgb: 0xFF0000))
        c.addDamage(c.bounds)
        return c
    }

    @Test func pngOutputWritesLatestAndNumberedFramesAtomically() throws {
        let dir = tempDir() + "/frames"   // created by the output
        let out = try PNGOutput(directory: dir, size: Size(width: 64, height: 32), keepFrames: 2)
        let c = sampleCanvas(Size(width: 64, height: 32))
        for _ in 0..<3 { try out.present(c, damage: c.damage) }
        let fm = FileManager.default
        let names = try fm.contentsOfDirectory(atPath: dir).sorted()
        #expect(names == ["frame-000002.png", "frame-000003.png", "latest.png"])  // no temporaries left
        let latest = try #require(PNGFile.read(path: dir + "/latest.png"))
        #expect(latest.width == 64 && latest.height == 32)
        #expect(latest.pixels[0] & 0xFFFFFF == 0xFF0000)
        #expect(latest.pixels[63] & 0xFFFFFF == 0x102030)
        try? fm.removeItem(atPath: dir)
    }

    @Test func pngOutputRotatesToThePanel() throws {
        let dir = tempDir()
        let out = try PNGOutput(directory: dir, size: Size(width: 32, height: 64), rotation: .clockwise90)
        #expect(out.logicalSize == Size(width: 64, height: 32))
        let c = sampleCanvas(out.logicalSize)
        try out.present(c, damage: c.damage)
        let img = try #require(PNGFile.read(path: dir + "/latest.png"))
        #expect(img.width == 32 && img.height == 64)
        // Logical top-left is physical top-right after a clockwise turn.
        #expect(img.pixels[31] & 0xFFFFFF == 0xFF0000)
        #expect(img.pixels[0] & 0xFFFFFF == 0x102030)
        try? FileManager.default.removeItem(atPath: dir)
    }

    @Test func missingDevicesGiveClearErrorsAndAreRetried() throws {
        let missing = "/dev/dri/card-that-does-not-exist"
        #expect(throws: DisplayError.noDevice(path: missing)) { try DRMOutput(path: missing) }
        // A file that is not a card / framebuffer.
        let file = tempDir()
        FileManager.default.createFile(atPath: file, contents: Data([1, 2, 3]))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: DisplayError.self) { try DRMOutput(path: file) }
        do {
            _ = try FramebufferOutput(path: file)
            Issue.record("a plain file opened as a framebuffer")
        } catch {
            guard case .notADisplay = error else { Issue.record("\(error)"); return }
        }

        let device = DisplayDevice(spec: .drm(device: missing), options: DisplayOptions(retryMilliseconds: 500))
        let t0 = Instant(milliseconds: 1000)
        #expect(device.open(now: t0) == false)
        #expect(device.lastError == .noDevice(path: missing))
        #expect(device.lastError?.isTransient == true)
        #expect(device.canvas == nil)
        #expect(device.nextDeadline == Instant(milliseconds: 1500))
        #expect(device.handleTimeout(now: Instant(milliseconds: 1200)) == false)
        #expect(device.handleTimeout(now: Instant(milliseconds: 1500)) == false)  // tried again, still missing
        #expect(device.nextDeadline == Instant(milliseconds: 2000))
        #expect(DisplayError.permissionDenied(path: "/dev/dri/card0").description.hasPrefix("permission denied opening /dev/dri/card0"))
    }

    @Test func deviceOpensPresentsAndCountsFrames() throws {
        let dir = tempDir()
        let device = DisplayDevice(spec: .png(directory: dir), options: DisplayOptions(virtualSize: Size(width: 80, height: 48)))
        #expect(device.open(now: .zero))
        let canvas = try #require(device.canvas)
        #expect(canvas.size == Size(width: 80, height: 48))
        #expect(device.pollDescriptor == nil && device.nextDeadline == nil)
        device.present(now: .zero)              // nothing damaged yet: no frame
        #expect(device.framesPresented == 0)
        canvas.fill(Rect(x: 0, y: 0, width: 8, height: 8), .white)
        canvas.addDamage(Rect(x: 0, y: 0, width: 8, height: 8))
        device.present(now: .zero)
        #expect(device.framesPresented == 1)
        #expect(FileManager.default.fileExists(atPath: dir + "/frame-000001.png"))
        device.close()
        #expect(device.canvas == nil)
        try? FileManager.default.removeItem(atPath: dir)
    }

    @Test func pixelPackings() {
        #expect(XBGR8888.pack(0xFF11_2233) == 0xFF33_2211)
        #expect(PNGOutput.frameName(7) == "frame-000007.png")
        #expect(PNGOutput.frameName(1234567) == "frame-1234567.png")
    }
}
