import Foundation
import Testing

/// The foundation end to end: our HCI host, over the `tcp:` transport, to a
/// Bumble virtual controller sharing a radio link with the simulated phone.
@Suite(.serialized) struct ScanAndConnectTests {
    @Test func scanListsTheSimulatedPhoneAsANavigationNotifierServer() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let run = try HeadUnitRun.run(["scan", "--hci", phone.hciSpec, "--seconds", "3"])
        #expect(run.status == 0, "\(run.stderr)")
        let summary = run.stdout.components(separatedBy: "summary:").last ?? ""
        let phoneLines = summary.split(separator: "\n").filter { $0.contains("[NavigationNotifier server]") }
        #expect(phoneLines.count == 1, "\(run.stdout)")
        // The name comes from the scan response, which needs an active scan.
        #expect(phoneLines.first?.contains("\"iPhone") == true, "\(run.stdout)")
        #expect(run.stdout.contains("1 NavigationNotifier server"), "\(run.stdout)")
    }

    @Test func connectsDisconnectsCleanlyAndTheTraceDecodes() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let dir = Paths.temporaryDirectory("connect")
        let trace = dir.appendingPathComponent("connect.btsnoop")
        let run = try HeadUnitRun.run(["connect", "--hci", phone.hciSpec, "--seconds", "20", "--trace", trace.path])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("connected: handle"))
        #expect(run.stdout.contains("disconnected: handle"))
        #expect(phone.waitFor("connected", timeout: 5) != nil)
        #expect(phone.waitFor("disconnected", timeout: 5) != nil)

        let summary = try TShark.decode(trace)
        for expected in ["Sent Reset", "Sent LE Set Scan Enable", "Sent LE Create Connection", "Connection Complete",
                         "Sent Disconnect", "Disconnect Complete"] {
            #expect(summary.contains(expected), "tshark summary lacks \(expected)")
        }
        let detail = try TShark.decode(trace, verbose: true)
        #expect(!detail.lowercased().contains("malformed"), "tshark reports malformed packets")
        #expect(!detail.contains("Expert Info (Warning"), "tshark warnings")
    }
}
