import BluetoothCore
import GhostDrop
import JSON
import Testing

@Suite struct FrameCodecTests {
    static let id = GhostUUID("26E067D7-2C95-4F96-9152-6ED1C1BE47F1")!
    static let frames: [GhostFrame] = [
        .hello(GhostHello(sessionID: id, deviceID: GhostUUID("813FFBB2-DC6B-4A17-9F0A-2F2E67B3F5BC")!, ephemeralPublicKey: [4, 0xFF, 0xFE],
                          nonce: Array(0..<16), capabilities: GhostCapabilities(supportsL2CAP: true, maxChunk: 180, maxWindow: 16))),
        .helloAck(GhostHelloAck(sessionID: id, ephemeralPublicKey: [5, 6], nonce: [7, 8])),
        .verify(GhostVerification(transcriptHash: [UInt8](repeating: 0xAA, count: 32), sasCode: "012345")),
        .verifyAck(accepted: true),
        .metadata(GhostFileMetadata(transferID: id, filename: "a/b \"c\".bin", size: 1024, mimeType: "text/plain",
                                    sha256: [UInt8](repeating: 0x11, count: 32), chunkSize: 128)),
        .data(sequence: 42, payload: [UInt8](repeating: 0xEE, count: 512)),
        .ack(GhostAck(cumulativeSequence: 41, nackBitmap: UInt64.max)),
        .resume(GhostResume(transferID: id, lastConfirmedSequence: 32)),
        .complete(GhostComplete(transferID: id, sha256: [UInt8](repeating: 0x22, count: 32))),
        .cancel(reason: "Cancelled by user"),
        .ping(id: UInt32.max),
        .encrypted(sequence: UInt64.max, combined: [UInt8](repeating: 0x33, count: 28)),
    ]

    @Test func everyKindRoundTrips() throws {
        for frame in Self.frames {
            let bytes = GhostFrameCodec.encode(frame)
            #expect(Array(bytes[0..<5]) == [0x47, 0x48, 0x53, 0x54, 1])
            #expect(bytes[5] == frame.kind.rawValue)
            let length = Int(bytes[6]) << 24 | Int(bytes[7]) << 16 | Int(bytes[8]) << 8 | Int(bytes[9])
            #expect(length == bytes.count - 10)
            #expect(try GhostFrameCodec.decode(bytes) == frame)
        }
    }

    @Test func jsonIsWhatJSONEncoderWrites() {
        let text = String(decoding: GhostFrameCodec.encode(Self.frames[4]).dropFirst(10), as: UTF8.self)
        #expect(text == #"{"metadata":{"transferID":"26E067D7-2C95-4F96-9152-6ED1C1BE47F1","filename":"a\/b \"c\".bin","size":1024,"mimeType":"text\/plain","sha256":"ERERERERERERERERERERERERERERERERERERERERERE=","chunkSize":128}}"#)
        #expect(String(decoding: GhostJSON.advertisement(GhostCapabilities(supportsL2CAP: true), psm: 0x0080), as: UTF8.self)
                == #"{"capabilities":{"supportsL2CAP":true,"maxChunk":180,"maxWindow":32,"protocolVersion":1},"psm":128}"#)
        #expect(String(decoding: GhostJSON.advertisement(GhostCapabilities(supportsL2CAP: false), psm: nil), as: UTF8.self)
                == #"{"capabilities":{"supportsL2CAP":false,"maxChunk":180,"maxWindow":32,"protocolVersion":1}}"#)
    }

    @Test func membersInAnyOrderAndUnknownOnesAreRead() throws {
        let body = Array(#"{"other":1,"ack":{"nackBitmap":18446744073709551615,"cumulativeSequence":3,"extra":"x"}}"#.utf8)
        var bytes: [UInt8] = [0x47, 0x48, 0x53, 0x54, 1, 7, 0, 0, 0, UInt8(body.count)] + body
        #expect(try GhostFrameCodec.decode(bytes) == .ack(GhostAck(cumulativeSequence: 3, nackBitmap: UInt64.max)))
        bytes.removeLast()
        #expect(throws: GhostFrameError.lengthMismatch) { try GhostFrameCodec.decode(bytes) }
    }

    @Test func aStreamCutAnywhereGivesTheSameFrames() throws {
        let stream = Self.frames.flatMap { GhostFrameCodec.encode($0) }
        for cut in stride(from: 1, to: 40, by: 3) {
            var reader = GhostFrameStream()
            var out: [GhostFrame] = []
            var offset = 0
            while offset < stream.count {
                reader.append(stream[offset..<min(offset + cut, stream.count)])
                offset += cut
                while let frame = try reader.next() { out.append(frame) }
            }
            #expect(out == Self.frames)
            #expect(reader.pendingCount == 0)
        }
    }

    @Test func badHeadersAreRefusedAndStayRefused() {
        var reader = GhostFrameStream()
        reader.append(Array("GHSX".utf8) + [1, 1, 0, 0, 0, 2] + Array("{}".utf8))
        #expect(throws: GhostFrameError.badMagic) { try reader.next() }
        reader.append(GhostFrameCodec.encode(.ping(id: 1)))
        #expect(throws: GhostFrameError.badMagic) { try reader.next() }

        #expect(throws: GhostFrameError.unsupportedVersion(2)) { try GhostFrameCodec.decode(Array("GHST".utf8) + [2, 1, 0, 0, 0, 0]) }
        #expect(throws: GhostFrameError.unknownKind(0x0D)) { try GhostFrameCodec.decode(Array("GHST".utf8) + [1, 0x0D, 0, 0, 0, 0]) }
        var long = GhostFrameStream()
        long.append(Array("GHST".utf8) + [1, 1, 0x00, 0x04, 0x00, 0x01])
        #expect(throws: GhostFrameError.bodyTooLong(256 * 1024 + 1)) { try long.next() }
    }

    @Test func missingAndMistypedMembersNameTheKey() {
        func frame(_ kind: GhostFrameKind, _ json: String) -> [UInt8] {
            let body = Array(json.utf8)
            return Array("GHST".utf8) + [1, kind.rawValue, 0, 0, 0, UInt8(body.count)] + body
        }
        #expect(throws: GhostFrameError.body(.verifyAck, .missing(key: "verifyAck"))) { try GhostFrameCodec.decode(frame(.verifyAck, #"{"ack":{}}"#)) }
        #expect(throws: GhostFrameError.body(.ping, .invalidValue(key: "id", reason: "exceeds UInt32"))) {
            try GhostFrameCodec.decode(frame(.ping, #"{"ping":{"id":4294967296}}"#))
        }
        #expect(throws: GhostFrameError.body(.resume, .invalidValue(key: "transferID", reason: "is not a UUID"))) {
            try GhostFrameCodec.decode(frame(.resume, #"{"resume":{"transferID":"nope","lastConfirmedSequence":1}}"#))
        }
        #expect(throws: GhostFrameError.body(.data, .invalidValue(key: "sequence", reason: "is not an unsigned 64-bit integer: -1"))) {
            try GhostFrameCodec.decode(frame(.data, #"{"dataPayload":{"sequence":-1,"payload":""}}"#))
        }
    }

    @Test func resumeStateRoundTripsAndRefusesNonsense() throws {
        guard case .metadata(let m) = Self.frames[4] else { return }
        let state = GhostResumeState(metadata: m, nextSequence: 5)
        #expect(try GhostResumeState(decoding: state.encoded) == state)
        #expect(state.writtenBytes == 640)
        #expect(throws: JSONError.self) { try GhostResumeState(decoding: GhostResumeState(metadata: m, nextSequence: 9).encoded) }
    }
}
