import Console
import Testing

/// `update PATH`: the bundle's path is the rest of the line (a USB stick's
/// file name may hold spaces), absolute, and of bounded length.
struct UpdateCommandTests {
    @Test func pathIsTheRestOfTheLine() {
        #expect(ConsoleCommand(line: "update /media/usb/headunit-qemu-virt.hubundle") == .update("/media/usb/headunit-qemu-virt.hubundle"))
        #expect(ConsoleCommand(line: "  UPDATE   /media/usb/my update.hubundle  \r") == .update("/media/usb/my update.hubundle"))
    }

    @Test func missingRelativeOrOverlongPathsGetTheUsageLine() {
        let usage = ConsoleCommand.invalid("usage: update PATH (a signed update bundle, e.g. /media/usb/headunit-qemu-virt.hubundle)")
        #expect(ConsoleCommand(line: "update") == usage)
        #expect(ConsoleCommand(line: "update bundle.hubundle") == usage)
        #expect(ConsoleCommand(line: "update /" + String(repeating: "a", count: ConsoleCommand.maximumPathBytes)) == usage)
    }

    @Test func helpListsIt() {
        #expect(ConsoleCommand.usage.contains("update PATH"))
    }
}
