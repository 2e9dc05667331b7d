import DisplaySettings
import Testing
@testable import Graphics

@Suite struct DisplaySpecTests {
    @Test func parsesEveryForm() throws {
        #expect(try DisplaySpec.parse("drm") == .drm(device: "/dev/dri/card0"))
        #expect(try DisplaySpec.parse("drm:/dev/dri/card1") == .drm(device: "/dev/dri/card1"))
        #expect(try DisplaySpec.parse("fbdev") == .fbdev(device: "/dev/fb0"))
        #expect(try DisplaySpec.parse("fbdev:/dev/fb1") == .fbdev(device: "/dev/fb1"))
        #expect(try DisplaySpec.parse("png:/tmp/frames") == .png(directory: "/tmp/frames"))
        #expect(try DisplaySpec.parse("png:out:with:colons") == .png(directory: "out:with:colons"))
        #expect(try DisplaySpec.parse("none") == DisplaySpec.none)
        #expect(DisplaySpec.drm(device: "/dev/dri/card1").description == "drm:/dev/dri/card1")
    }

    @Test(arguments: ["", "png", "png:", "drm:", "vnc:5900", "none:x", "DRM", "fbdev:"])
    func rejectsBadSpecs(_ text: String) {
        #expect(throws: DisplaySpecError.self) { try DisplaySpec.parse(text) }
    }

    @Test func modeStrings() {
        #expect(DRMPreferences.parseMode("1280x720")! == (1280, 720, nil))
        #expect(DRMPreferences.parseMode("800x480@60")! == (800, 480, 60))
        for bad in ["1280", "x720", "1280x", "1280x720@", "axb", "0x480", "1280x720@60@1"] {
            #expect(DRMPreferences.parseMode(bad) == nil, "\(bad)")
        }
    }
}
