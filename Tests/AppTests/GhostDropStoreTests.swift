import Foundation
import GhostDrop
import HeadUnitCore
import Platform
import ScreenValues
import Testing
@testable import App

/// GhostDrop's files in the state directory: a restart resumes from the
/// SHA-256 of the bytes the resume state covers, read from disk in chunks;
/// a received file is handed on by what it is.
@Suite struct GhostDropStoreTests {
    func stateDirectory() throws -> (StateFiles, String) {
        let directory = NSTemporaryDirectory() + "ghostdrop-store-\(UUID().uuidString)"
        let files = StateFiles(directory: directory)
        try files.prepare()
        return (files, directory)
    }

    func resumeState(size: Int64, next: UInt64) -> GhostResumeState {
        GhostResumeState(metadata: GhostFileMetadata(transferID: GhostUUID("00000000-0000-4000-8000-00000000000A")!,
                                                     filename: "a.hubundle", size: size, mimeType: "application/octet-stream",
                                                     sha256: [UInt8](repeating: 4, count: 32), chunkSize: 1000),
                         nextSequence: next)
    }

    func sha256(_ bytes: [UInt8]) -> [UInt8] {
        let digest = GhostDigest()
        digest.update(bytes)
        return digest.finish()
    }

    /// 200 chunks covered of a file that holds more (bytes appended after
    /// the last resume state): exactly the covered 200,000 bytes are hashed,
    /// more than three reads of 64 KiB.
    @Test func aRestartHashesTheCoveredBytesFromDisk() throws {
        let (files, directory) = try stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = (0..<230_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        try files.write(GhostDropStore.incoming, bytes)
        try files.write(GhostDropStore.resume, resumeState(size: 1_000_000, next: 200).encoded)
        let (resume, written) = GhostDropStore(files: files).load()
        #expect(resume == resumeState(size: 1_000_000, next: 200).encoded)
        let digest = try #require(written)
        #expect(digest.byteCount == 200_000)
        #expect(digest.finish() == sha256(Array(bytes.prefix(200_000))))
    }

    @Test func aShortIncomingFileGivesNoDigest() throws {
        let (files, directory) = try stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try files.write(GhostDropStore.incoming, [UInt8](repeating: 1, count: 1500))
        try files.write(GhostDropStore.resume, resumeState(size: 10_000, next: 2).encoded)
        #expect(GhostDropStore(files: files).load().written == nil)
        try files.remove(GhostDropStore.incoming)
        #expect(GhostDropStore(files: files).load().written == nil)
        try files.remove(GhostDropStore.resume)
        let none = GhostDropStore(files: files).load()
        #expect(none.resume == nil && none.written == nil)
        #expect(GhostDropStore(files: files).freeBytes().map { $0 > 0 } == true)
    }

    /// Off the image (no installers), a whole file is checked and kept,
    /// and the console says what became of it.
    @Test func aReceivedFileIsCheckedAndHandedOn() throws {
        let (files, directory) = try stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = GhostDropStore(files: files)

        try files.write(GhostDropStore.incoming, Array("[display]\nrotation = 45\n".utf8))
        let refusedConf = try #require(store.apply(.completed(name: "headunit.conf")))
        let refused = refusedConf.line
        if case .refused(let reason) = refusedConf.outcome { #expect(reason.contains("rotation"), "\(reason)") } else {
            Issue.record("a bad headunit.conf shows \(refusedConf.outcome)")
        }
        #expect(refused.hasPrefix("config: refused ") && refused.contains("rotation") && refused.hasSuffix("not applied, the configuration in use stays"), "\(refused)")
        #expect(files.read("received-headunit.conf") != nil)

        try files.write(GhostDropStore.incoming, Array("[display]\nrotation = 180\n".utf8))
        let validConf = try #require(store.apply(.completed(name: "headunit.conf")))
        let valid = validConf.line
        #expect(validConf.outcome == .received)
        #expect(valid.contains("is valid; this system has no configuration installer"), "\(valid)")

        try files.write(GhostDropStore.incoming, Array("not a bundle at all".utf8))
        let junkBundle = try #require(store.apply(.completed(name: "x.hubundle")))
        let junk = junkBundle.line
        #expect(junkBundle.outcome == .refused("Not an update bundle: not an update bundle (no NNBUNDLE header)"))
        #expect(junk == "update: refused x.hubundle from the phone: Not an update bundle: not an update bundle (no NNBUNDLE header); deleted")
        #expect(files.read("received-x.hubundle") == nil)
    }
}
