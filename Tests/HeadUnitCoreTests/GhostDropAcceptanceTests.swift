import BluetoothCore
import GhostDrop
import GhostDropFixture
@testable import HeadUnitCore
import Testing
import Update

/// What the head unit takes over GhostDrop: update bundles and
/// headunit.conf, under their caps and the state partition's free space;
/// anything else is refused at `incoming` with a reason the phone shows.
@Suite struct GhostDropAcceptanceTests {
    func offer(_ filename: String, size: Int64) -> GhostFileMetadata {
        GhostFileMetadata(transferID: GhostUUID("00000000-0000-4000-8000-000000000009")!, filename: filename, size: size,
                          mimeType: "application/octet-stream", sha256: [UInt8](repeating: 3, count: 32), chunkSize: 1024)
    }

    func refusal(_ filename: String, size: Int64, startOffset: Int64 = 0, free: Int64? = nil) -> String? {
        if case .failure(let refusal) = GhostDropFileKind.decide(offer(filename, size: size), startOffset: startOffset, freeBytes: free) {
            return refusal.reason
        }
        return nil
    }

    @Test func onlyBundlesAndHeadunitConfAreTaken() {
        #expect(GhostDropFileKind(filename: "headunit-qemu-virt.hubundle") == .updateBundle)
        #expect(GhostDropFileKind(filename: "Downloads/NEW.HUBUNDLE") == .updateBundle)
        #expect(GhostDropFileKind(filename: "headunit.conf") == .configuration)
        for name in ["notes.txt", "headunit.conf.bak", "my headunit.conf", ".hubundle", "update.hubundle.zip", "photo.heic"] {
            #expect(GhostDropFileKind(filename: name) == nil, "\(name)")
            #expect(refusal(name, size: 10) == "only update bundles and headunit.conf are accepted")
        }
        #expect(refusal("update.hubundle", size: 10) == nil)
        #expect(refusal("headunit.conf", size: 10) == nil)
    }

    @Test func sizeCapsAndFreeSpace() {
        #expect(refusal("headunit.conf", size: 64 * 1024) == nil)
        #expect(refusal("headunit.conf", size: 64 * 1024 + 1) == "headunit.conf is too large for a headunit.conf (65537 bytes, at most 65536)")
        #expect(refusal("a.hubundle", size: 32 << 20) == nil)
        #expect(refusal("a.hubundle", size: (32 << 20) + 1)?.hasPrefix("a.hubundle is too large for an update bundle") == true)
        // 10 MiB to write needs 11 MiB free (1 MiB stays for the state files).
        #expect(refusal("a.hubundle", size: 10 << 20, free: 11 << 20) == nil)
        #expect(refusal("a.hubundle", size: 10 << 20, free: (11 << 20) - 1)
                == "Not enough free space on the head unit for a.hubundle (10485760 bytes to write, 10485759 free)")
        // A resumed transfer needs room for what is left only.
        #expect(refusal("a.hubundle", size: 10 << 20, startOffset: 6 << 20, free: 5 << 20) == nil)
    }

    @Test func aBundleHeaderIsChecked() {
        #expect(GhostDropFileKind.bundleHeaderRefusal(BundleHeader(manifestLength: 200).bytes) == nil)
        #expect(GhostDropFileKind.bundleHeaderRefusal(Array("GHST\u{1}abcdefghijk".utf8))?.reason
                == "Not an update bundle: not an update bundle (no NNBUNDLE header)")
        var newer = BundleHeader(manifestLength: 200).bytes
        newer[8] = 2
        #expect(GhostDropFileKind.bundleHeaderRefusal(newer) != nil)
    }

    /// The recorded transfer (a headunit.conf) through the core with no
    /// room on the state partition: refused at `incoming`, the reason goes
    /// to the phone, nothing is written.
    @Test func noRoomRefusesTheFileAndWritesNothing() throws {
        let transfer = GhostDropTransferTests()
        let fixture = try TransferFixture.load()
        var stored = accessoryState
        stored.stateFreeBytes = 4096
        let rig = try transfer.openChannel(fixture.sessions[0], stored: stored)
        _ = transfer.run(fixture.sessions[0], rig)
        let reports = transfer.reports(rig)
        let reason = "Not enough free space on the head unit for headunit.conf (\(fixture.file.count) bytes to write, 0 free)"
        #expect(reports.contains(.incoming(filename: "headunit.conf", size: Int64(fixture.file.count), mimeType: "text/plain", startOffset: 0)))
        #expect(reports.last == .ended(reason: reason, byPeer: false, resumable: false))
        #expect(!rig.writes.contains { if case .ghostDrop = $0 { return true } else { return false } })
        // The cancel, sealed, went to the phone after the receiver's acks stopped.
        var frames = GhostFrameStream()
        frames.append(transfer.stream(rig))
        var kinds: [GhostFrameKind] = []
        while let frame = try frames.next() { kinds.append(frame.kind) }
        #expect(kinds.last == .encrypted && !kinds.contains(.ack), "\(kinds)")
        // With room, the same transfer is taken.
        rig.core.stateFreeBytes(Int64(fixture.file.count) + GhostDropFileKind.reserveBytes)
        #expect(rig.core.ghostDrop.stateFreeBytes == Int64(fixture.file.count) + GhostDropFileKind.reserveBytes)
    }
}
