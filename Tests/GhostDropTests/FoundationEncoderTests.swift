import Foundation
import GhostDrop
import Testing

/// GhostDrop's bytes from Foundation's own `JSONEncoder()` (default
/// strategies) run on types declared as GhostDropKit declares them
/// (GhostFrame.swift, GhostMetadata.swift, GhostTypes.swift and the
/// codec's envelope), so neither our writer nor our simulator decides what
/// the app writes. Members are compared as parsed objects: JSONEncoder
/// without `.sortedKeys` does not promise an order.
@Suite struct FoundationEncoderTests {
    struct DeviceID: Codable { let rawValue: UUID }
    struct Capabilities: Codable { let supportsL2CAP: Bool; let maxChunk: Int; let maxWindow: Int; let protocolVersion: Int }
    struct Hello: Codable { let sessionID: UUID; let deviceID: DeviceID; let ephemeralPublicKey: Data; let nonce: Data; let capabilities: Capabilities }
    struct FileMetadata: Codable { let transferID: UUID; let filename: String; let size: Int64; let mimeType: String; let sha256: Data; let chunkSize: Int }
    struct Ack: Codable { let cumulativeSequence: UInt64; let nackBitmap: UInt64 }
    struct DataPayload: Codable { let sequence: UInt64; let payload: Data }
    struct Advertisement: Codable { let capabilities: Capabilities; let psm: UInt16? }
    struct Payload: Codable {
        var hello: Hello?
        var metadata: FileMetadata?
        var dataPayload: DataPayload?
        var ack: Ack?
    }

    static let session = UUID(uuidString: "26e067d7-2c95-4f96-9152-6ed1c1be47f1")!
    static let device = UUID(uuidString: "813FFBB2-DC6B-4A17-9F0A-2F2E67B3F5BC")!

    func parsed(_ bytes: [UInt8]) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    func check(_ ours: GhostFrame, _ theirs: Payload) throws {
        let reference = Array(try JSONEncoder().encode(theirs))
        let body = Array(GhostFrameCodec.encode(ours).dropFirst(10))
        #expect(try parsed(body) == parsed(reference))
        #expect(body.count == reference.count)
        // Same escapes: every "/" of base64 and text written "\/".
        #expect(body.filter { $0 == 0x5C }.count == reference.filter { $0 == 0x5C }.count)
    }

    @Test func helloMetadataDataAndAck() throws {
        let key = [UInt8](repeating: 0xFF, count: 65)  // base64 full of "/"
        let caps = GhostCapabilities(supportsL2CAP: true)
        try check(.hello(GhostHello(sessionID: GhostUUID("26E067D7-2C95-4F96-9152-6ED1C1BE47F1")!,
                                    deviceID: GhostUUID("813FFBB2-DC6B-4A17-9F0A-2F2E67B3F5BC")!, ephemeralPublicKey: key,
                                    nonce: Array(0..<16), capabilities: caps)),
                  Payload(hello: Hello(sessionID: Self.session, deviceID: DeviceID(rawValue: Self.device), ephemeralPublicKey: Data(key),
                                       nonce: Data(0..<16), capabilities: Capabilities(supportsL2CAP: true, maxChunk: 180, maxWindow: 32, protocolVersion: 1))))
        try check(.metadata(GhostFileMetadata(transferID: GhostUUID("813FFBB2-DC6B-4A17-9F0A-2F2E67B3F5BC")!, filename: "a/b.bundle",
                                              size: 5_000_000_000, mimeType: "application/octet-stream", sha256: Array(repeating: 0xFB, count: 32), chunkSize: 180)),
                  Payload(metadata: FileMetadata(transferID: Self.device, filename: "a/b.bundle", size: 5_000_000_000,
                                                 mimeType: "application/octet-stream", sha256: Data(repeating: 0xFB, count: 32), chunkSize: 180)))
        try check(.data(sequence: UInt64.max, payload: [0xFF, 0xFE]), Payload(dataPayload: DataPayload(sequence: UInt64.max, payload: Data([0xFF, 0xFE]))))
        try check(.ack(GhostAck(cumulativeSequence: 9, nackBitmap: 1 << 63)), Payload(ack: Ack(cumulativeSequence: 9, nackBitmap: 1 << 63)))
    }

    /// The other way: what the app sends (JSONEncoder's bytes, members in
    /// its order, "\/" escapes, uppercase UUIDs) read by our codec.
    @Test func framesTheAppWritesAreRead() throws {
        func framed(_ kind: GhostFrameKind, _ payload: Payload) throws -> [UInt8] {
            let body = Array(try JSONEncoder().encode(payload))
            let n = UInt32(body.count)
            return Array("GHST".utf8) + [GhostFrameCodec.version, kind.rawValue,
                                         UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + body
        }
        let key = [UInt8](repeating: 0xFF, count: 65)
        let hello = try framed(.hello, Payload(hello: Hello(sessionID: Self.session, deviceID: DeviceID(rawValue: Self.device),
                                                              ephemeralPublicKey: Data(key), nonce: Data(0..<16),
                                                              capabilities: Capabilities(supportsL2CAP: true, maxChunk: 180,
                                                                                         maxWindow: 32, protocolVersion: 1))))
        #expect(try GhostFrameCodec.decode(hello) == .hello(GhostHello(
            sessionID: GhostUUID("26E067D7-2C95-4F96-9152-6ED1C1BE47F1")!, deviceID: GhostUUID("813FFBB2-DC6B-4A17-9F0A-2F2E67B3F5BC")!,
            ephemeralPublicKey: key, nonce: Array(0..<16), capabilities: GhostCapabilities(supportsL2CAP: true))))
        let metadata = try framed(.metadata, Payload(metadata: FileMetadata(
            transferID: Self.device, filename: "a/b.hubundle", size: 13_533_429, mimeType: "application/octet-stream",
            sha256: Data(repeating: 0xFB, count: 32), chunkSize: 180)))
        #expect(try GhostFrameCodec.decode(metadata) == .metadata(GhostFileMetadata(
            transferID: GhostUUID("813FFBB2-DC6B-4A17-9F0A-2F2E67B3F5BC")!, filename: "a/b.hubundle", size: 13_533_429,
            mimeType: "application/octet-stream", sha256: Array(repeating: 0xFB, count: 32), chunkSize: 180)))
        let data = try framed(.data, Payload(dataPayload: DataPayload(sequence: 74_000, payload: Data([0xFF, 0xFE, 0x00]))))
        #expect(try GhostFrameCodec.decode(data) == .data(sequence: 74_000, payload: [0xFF, 0xFE, 0x00]))
    }

    @Test func advertisementLeavesOutAnAbsentPSM() throws {
        let caps = Capabilities(supportsL2CAP: false, maxChunk: 180, maxWindow: 32, protocolVersion: 1)
        for psm: UInt16? in [nil, 0x0081] {
            let reference = Array(try JSONEncoder().encode(Advertisement(capabilities: caps, psm: psm)))
            let ours = GhostJSON.advertisement(GhostCapabilities(supportsL2CAP: false), psm: psm)
            #expect(try parsed(ours) == parsed(reference))
            #expect(ours.count == reference.count)
        }
    }
}
