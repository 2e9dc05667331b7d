import Foundation
import Testing
import Update

/// The bundle reader fed honest, altered, cut and oversized bundles.
struct BundleReaderTests {
    static let slots = [BundleSlot(name: "root", capacity: 1 << 20), BundleSlot(name: "boot", capacity: 100_000)]

    static func reader(compatible: String = "qemu-virt", slots: [BundleSlot] = slots) throws -> BundleReader {
        let key = try Ed25519PublicKey(hexFile: Array(try Data(contentsOf: URL(fileURLWithPath: TestKey.publicKeyPath))))
        return BundleReader(publicKey: key, compatible: compatible, slots: slots)
    }

    /// What a reader makes of `bytes` fed in `chunk`-sized pieces: its events,
    /// with each image's data put back together.
    struct Outcome {
        var events: [BundleEvent] = []
        var images: [Int: [UInt8]] = [:]
        var dataBeforeVerified = false

        var last: BundleEvent? { events.last }
    }

    static func read(_ bytes: [UInt8], chunk: Int = 4096, compatible: String = "qemu-virt",
                     slots: [BundleSlot] = slots, finish: Bool = true) throws -> Outcome {
        let reader = try reader(compatible: compatible, slots: slots)
        var outcome = Outcome()
        var verified = false
        func drain() {
            while let event = reader.poll() {
                switch event {
                case .verified: verified = true
                case .data(let image, let offset, let piece):
                    if !verified { outcome.dataBeforeVerified = true }
                    #expect(UInt64(outcome.images[image, default: []].count) == offset)
                    outcome.images[image, default: []] += piece
                    continue
                default: break
                }
                outcome.events.append(event)
            }
        }
        var index = 0
        while index < bytes.count {
            reader.feed(Array(bytes[index..<min(index + chunk, bytes.count)]))
            drain()
            index += chunk
        }
        if finish { reader.finish() }
        drain()
        return outcome
    }

    @Test func honestBundleIsVerifiedAndItsImagesComeOutWhole() throws {
        var bundle = TestBundle()
        bundle.images.append(("boot", TestBundle.pattern(count: 5_000, salt: 2)))
        for chunk in [1, 7, 4096, 1 << 20] {
            let outcome = try Self.read(bundle.bytes(), chunk: chunk)
            #expect(outcome.events == [.verified(bundle.manifest), .imageVerified(image: 0), .imageVerified(image: 1), .complete], "chunk \(chunk)")
            #expect(outcome.images[0] == bundle.images[0].1)
            #expect(outcome.images[1] == bundle.images[1].1)
        }
    }

    @Test func anyAlteredByteOfHeaderManifestOrSignatureIsABadSignatureOrRefusal() throws {
        let honest = TestBundle().bytes()
        let signedAndSignature = BundleHeader.size + Array(TestBundle().manifest.text.utf8).count + 64
        for position in 0..<signedAndSignature {
            var bytes = honest
            bytes[position] ^= 0x01
            let outcome = try Self.read(bytes, chunk: 999)
            #expect(outcome.images.isEmpty, "byte \(position): data came out")
            guard case .rejected(let error) = outcome.last, outcome.events.count == 1 else {
                Issue.record("byte \(position) altered: \(outcome.events)")
                continue
            }
            // The magic, format, flags and length are refused before the signature is checked.
            if position >= BundleHeader.size { #expect(error == .badSignature, "byte \(position): \(error)") }
        }
    }

    @Test func anotherKeysSignatureIsRefusedBeforeAnyData() throws {
        var bundle = TestBundle()
        bundle.seed = [UInt8](repeating: 0x42, count: 32)
        let outcome = try Self.read(bundle.bytes())
        #expect(outcome.events == [.rejected(.badSignature)])
        #expect(outcome.images.isEmpty)
    }

    @Test func alteredImageByteIsAHashMismatch() throws {
        let bundle = TestBundle()
        var bytes = bundle.bytes()
        bytes[bytes.count - 1234] ^= 0x80
        let outcome = try Self.read(bytes)
        #expect(outcome.events == [.verified(bundle.manifest), .rejected(.hashMismatch("root"))])
        #expect(!outcome.dataBeforeVerified)
    }

    @Test func truncatedAnywhereIsTruncated() throws {
        let bytes = TestBundle().bytes()
        for length in [0, 1, 15, 16, 40, 16 + Array(TestBundle().manifest.text.utf8).count + 63, bytes.count - 1] {
            let outcome = try Self.read(Array(bytes.prefix(length)))
            #expect(outcome.last == .rejected(.truncated), "\(length) bytes: \(outcome.events)")
            #expect(!outcome.events.contains(.complete))
        }
    }

    @Test func bytesAfterTheLastImageAreRefused() throws {
        let outcome = try Self.read(TestBundle().bytes() + [0])
        #expect(outcome.last == .rejected(.trailingBytes))
        #expect(!outcome.events.contains(.complete))
    }

    @Test func imageLargerThanItsSlotIsRefusedBeforeAnyData() throws {
        let slots = [BundleSlot(name: "root", capacity: 69_999)]
        let outcome = try Self.read(TestBundle().bytes(), slots: slots)
        #expect(outcome.events == [.rejected(.imageTooLarge(name: "root", size: 70_000, capacity: 69_999))])
        #expect(outcome.images.isEmpty)
        let noBoot = [BundleSlot(name: "root", capacity: 1 << 20)]
        var bundle = TestBundle()
        bundle.images.append(("boot", [1, 2, 3]))
        #expect(try Self.read(bundle.bytes(), slots: noBoot).events == [.rejected(.noSlot("boot"))])
    }

    @Test func oversizedManifestIsRefusedFromItsHeader() throws {
        let header = BundleHeader(manifestLength: 4097).bytes
        // Refused on the header alone: the reader does not wait for (or buffer) 4 KiB.
        let outcome = try Self.read(header, finish: false)
        #expect(outcome.events == [.rejected(.manifestSize(4097))])
        #expect(try Self.read(BundleHeader(manifestLength: 0).bytes, finish: false).events == [.rejected(.manifestSize(0))])
    }

    @Test func headerOfAnotherFormatIsRefused() throws {
        var bytes = TestBundle().bytes()
        bytes[8] = 2
        #expect(try Self.read(bytes).events == [.rejected(.unsupportedFormat(2))])
        bytes = TestBundle().bytes()
        bytes[11] = 1
        #expect(try Self.read(bytes).events == [.rejected(.unknownFlags(256))])
        #expect(try Self.read(Array("PK\u{3}\u{4} not a bundle at all".utf8)).events == [.rejected(.notABundle)])
    }

    @Test func bundleForAnotherBoardIsRefused() throws {
        var bundle = TestBundle()
        bundle.compatible = "rpi"
        #expect(try Self.read(bundle.bytes()).events == [.rejected(.incompatible("rpi"))])
    }

    @Test func signedButMalformedManifestsAreRefused() throws {
        let hash = String(repeating: "ab", count: 32)
        let cases: [(String, Int)] = [
            ("format 1\ncompatible qemu-virt\nversion 2\n", 3),                                  // no image
            ("format 2\ncompatible qemu-virt\nversion 2\nimage root 1 \(hash)\n", 1),              // unknown format
            ("format 1\ncompatible qemu-virt\nversion 2\nimage root 01 \(hash)\n", 4),             // leading zero
            ("format 1\ncompatible qemu-virt\nversion 2\nimage root 1 abcd\n", 4),                 // short hash
            ("format 1\ncompatible qemu-virt\nversion 2\nimage Root 1 \(hash)\n", 4),              // name case
            ("format 1\ncompatible qemu-virt\nversion 2\nimage root 1 \(hash)\nimage root 1 \(hash)\n", 5),
            ("format 1\ncompatible qemu-virt\nversion 2\nversion 3\nimage root 1 \(hash)\n", 4),
            ("format 1\ncompatible qemu-virt\nversion  2\nimage root 1 \(hash)\n", 3),             // two spaces
            ("format 1\ncompatible qemu-virt\nversion 2\nimage root 1 \(hash)\nbootloader yes\n", 5),
            ("format 1\ncompatible qemu-virt\nversion 2\nimage root 1 \(hash)", 0),                // no final newline
            ("format 1\ncompatible qemu-virt\nversion 2\u{7}\nimage root 1 \(hash)\n", 3),
        ]
        for (text, line) in cases {
            let outcome = try Self.read(TestBundle().bytes(manifestText: text))
            guard case .rejected(.malformedManifest(let got, _)) = outcome.last, outcome.events.count == 1 else {
                Issue.record("\(text.debugDescription): \(outcome.events)")
                continue
            }
            #expect(got == line, "\(text.debugDescription)")
        }
    }

    @Test func publicKeyFileIsTheTestKeysPublicHalf() throws {
        let text = try String(contentsOfFile: TestKey.publicKeyPath, encoding: .utf8)
        #expect(Hex.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)) == TestKey.publicKey(fromSeed: TestKey.seed()))
        #expect(throws: BundleError.badPublicKey) { try Ed25519PublicKey(hexFile: Array("abcd\n".utf8)) }
    }

    /// image/mkbundle (bash and openssl) and this reader agree on the format.
    @Test func bundleWrittenByMkbundleIsVerified() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mkbundle-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = TestBundle.pattern(count: 300_001, salt: 5)
        let boot = TestBundle.pattern(count: 4_096, salt: 6)
        try Data(root).write(to: folder.appendingPathComponent("root.img"))
        try Data(boot).write(to: folder.appendingPathComponent("boot.img"))
        let out = folder.appendingPathComponent("b.hubundle").path
        let process = Process()
        process.executableURL = TestKey.repository.appendingPathComponent("image/mkbundle")
        process.arguments = ["--key", TestKey.privateKeyPath, "--compatible", "qemu-virt", "--version", "2026.11.27-test",
                             "--out", out, "root=" + folder.appendingPathComponent("root.img").path,
                             "boot=" + folder.appendingPathComponent("boot.img").path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let outcome = try Self.read(Array(try Data(contentsOf: URL(fileURLWithPath: out))), chunk: 65536)
        let manifest = BundleManifest(compatible: "qemu-virt", version: "2026.11.27-test",
                                      images: [.init(name: "root", size: 300_001, sha256: TestKey.sha256(root)),
                                               .init(name: "boot", size: 4_096, sha256: TestKey.sha256(boot))])
        #expect(outcome.events == [.verified(manifest), .imageVerified(image: 0), .imageVerified(image: 1), .complete])
        #expect(outcome.images[0] == root && outcome.images[1] == boot)
    }
}
