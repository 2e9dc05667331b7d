import Testing
import BluetoothCore
@testable import ATT

let nnService = BluetoothUUID("AB312B45-A8A1-4BCE-97E7-7D3D97FB541E")!

func bytes(_ text: String) -> [UInt8] { bytesFromHex(text)! }

/// Every PDU the client and server use, as bytes seen on the air, with the
/// typed value it decodes to. Each must decode to the value and encode back
/// to the same bytes.
let vectors: [(String, ATTPDU)] = [
    ("01 0a 0300 05", .errorResponse(request: .readRequest, handle: AttributeHandle(3), error: .insufficientAuthentication)),
    ("01 12 2a00 80", .errorResponse(request: .writeRequest, handle: AttributeHandle(0x2A), error: .application(0x80))),
    ("02 f700", .exchangeMTURequest(clientRxMTU: 247)),
    ("03 0f02", .exchangeMTUResponse(serverRxMTU: 527)),
    ("04 0800 0a00", .findInformationRequest(AttributeHandleRange(8, 10))),
    ("05 01 0900 0229 0a00 0129", .findInformationResponse([
        AttributeHandleUUID(handle: AttributeHandle(9), uuid: BluetoothUUID(0x2902)),
        AttributeHandleUUID(handle: AttributeHandle(10), uuid: BluetoothUUID(0x2901)),
    ])),
    ("05 02 2000 1e54fb973d7de797ce4ba1a8452b31ab", .findInformationResponse([
        AttributeHandleUUID(handle: AttributeHandle(0x20), uuid: nnService),
    ])),
    ("06 0100 ffff 0028 1e54fb973d7de797ce4ba1a8452b31ab", .findByTypeValueRequest(.all, type: 0x2800, value: nnService.fullLittleEndian)),
    ("06 0100 ffff 0028 0018", .findByTypeValueRequest(.all, type: 0x2800, value: [0x00, 0x18])),
    ("07 2800 3000", .findByTypeValueResponse([AttributeHandlesInformation(found: AttributeHandle(0x28), groupEnd: AttributeHandle(0x30))])),
    ("08 0100 0500 0328", .readByTypeRequest(AttributeHandleRange(1, 5), type: BluetoothUUID(0x2803))),
    ("08 0100 ffff 1e54fb973d7de797ce4ba1a8452b31ab", .readByTypeRequest(.all, type: nnService)),
    ("09 07 0200 02 0300 002a 0400 02 0500 012a", .readByTypeResponse([
        AttributeData(handle: AttributeHandle(2), value: bytes("02 0300 002a")),
        AttributeData(handle: AttributeHandle(4), value: bytes("02 0500 012a")),
    ])),
    ("0a 0300", .readRequest(AttributeHandle(3))),
    ("0b 48552d334639413231", .readResponse(Array("HU-3F9A21".utf8))),
    ("0b", .readResponse([])),
    ("0c 0300 1600", .readBlobRequest(AttributeHandle(3), offset: 22)),
    ("0d 414243", .readBlobResponse(bytes("414243"))),
    ("0e 0300 0500", .readMultipleRequest([AttributeHandle(3), AttributeHandle(5)])),
    ("0f 41c108", .readMultipleResponse(bytes("41c108"))),
    ("10 0100 ffff 0028", .readByGroupTypeRequest(.all, type: BluetoothUUID(0x2800))),
    ("11 06 0100 0500 0018 0600 0900 0118", .readByGroupTypeResponse([
        AttributeGroupData(handle: AttributeHandle(1), groupEnd: AttributeHandle(5), value: [0x00, 0x18]),
        AttributeGroupData(handle: AttributeHandle(6), groupEnd: AttributeHandle(9), value: [0x01, 0x18]),
    ])),
    ("11 14 2000 2a00 1e54fb973d7de797ce4ba1a8452b31ab", .readByGroupTypeResponse([
        AttributeGroupData(handle: AttributeHandle(0x20), groupEnd: AttributeHandle(0x2A), value: nnService.fullLittleEndian),
    ])),
    ("12 2a00 554e504149524544", .writeRequest(AttributeHandle(0x2A), value: Array("UNPAIRED".utf8))),
    ("13", .writeResponse),
    ("52 2c00 0100", .writeCommand(AttributeHandle(0x2C), value: [0x01, 0x00])),
    ("d2 2c00 01 000102030405060708090a0b", .signedWriteCommand(AttributeHandle(0x2C), value: [0x01], signature: Array(0...11))),
    ("16 2a00 0000 4142", .prepareWriteRequest(AttributeHandle(0x2A), offset: 0, value: bytes("4142"))),
    ("17 2a00 1200 4142", .prepareWriteResponse(AttributeHandle(0x2A), offset: 18, value: bytes("4142"))),
    ("18 01", .executeWriteRequest(flags: 1)),
    ("19", .executeWriteResponse),
    ("1b 2a00 554e504149524544", .handleValueNotification(AttributeHandle(0x2A), value: Array("UNPAIRED".utf8))),
    ("1d 0300 0100ffff", .handleValueIndication(AttributeHandle(3), value: bytes("0100ffff"))),
    ("1e", .handleValueConfirmation),
]

@Suite struct ATTPDUTests {
    @Test func decodesAndEncodesEveryOpcode() throws {
        for (text, pdu) in vectors {
            let raw = bytes(text)
            #expect(try ATTPDU.decode(raw) == pdu, "decode \(text)")
            #expect(pdu.encode() == raw, "encode \(text)")
            #expect(pdu.opcode.rawValue == raw[0])
        }
    }

    /// Fixed-size PDUs: one byte less or one byte more is an invalid length.
    @Test(arguments: [
        "01 0a 0300 05", "02 f700", "03 0f02", "04 0800 0a00", "0a 0300", "0c 0300 1600", "18 01",
    ])
    func fixedSizePDUsRejectWrongLengths(text: String) {
        let raw = bytes(text)
        let op = AttributeOpcode(raw[0])
        #expect(throws: ATTDecodeError.invalidLength(op)) { try ATTPDU.decode(Array(raw.dropLast())) }
        #expect(throws: ATTDecodeError.invalidLength(op)) { try ATTPDU.decode(raw + [0x00]) }
    }

    @Test(arguments: ["13", "19", "1e"])
    func emptyPDUsRejectExtraBytes(text: String) {
        let raw = bytes(text)
        #expect(throws: ATTDecodeError.invalidLength(AttributeOpcode(raw[0]))) { try ATTPDU.decode(raw + [0x00]) }
    }

    @Test func listsMustBeWholeEntries() {
        let cases: [(String, ATTDecodeError)] = [
            ("05 01 0900 02", .invalidLength(.findInformationResponse)),          // half a 16-bit entry
            ("05 01", .invalidLength(.findInformationResponse)),                  // no entries
            ("05 02 0900 0229", .invalidLength(.findInformationResponse)),        // format says 128-bit
            ("05 03 0900 0229", .invalidFormat(.findInformationResponse)),        // no such format
            ("05", .invalidLength(.findInformationResponse)),
            ("07 2800 30", .invalidLength(.findByTypeValueResponse)),
            ("07", .invalidLength(.findByTypeValueResponse)),
            ("09 07 0200 02 0300 002a 0400", .invalidLength(.readByTypeResponse)),
            ("09 01 0200", .invalidFormat(.readByTypeResponse)),                  // entry shorter than a handle
            ("09 07", .invalidLength(.readByTypeResponse)),
            ("09", .invalidLength(.readByTypeResponse)),
            ("11 06 0100 0500 0018 0600", .invalidLength(.readByGroupTypeResponse)),
            ("11 03 0100 05", .invalidFormat(.readByGroupTypeResponse)),
            ("11", .invalidLength(.readByGroupTypeResponse)),
            ("0e 0300", .invalidLength(.readMultipleRequest)),                    // one handle only
            ("0e 0300 0500 07", .invalidLength(.readMultipleRequest)),
        ]
        for (text, error) in cases {
            #expect(throws: error, "\(text)") { try ATTPDU.decode(bytes(text)) }
        }
    }

    @Test func uuidFieldsMustBe16Or128Bits() {
        // 32-bit UUIDs are not allowed in Read By (Group) Type requests.
        #expect(throws: ATTDecodeError.invalidLength(.readByTypeRequest)) { try ATTPDU.decode(bytes("08 0100 ffff 0328 0000")) }
        #expect(throws: ATTDecodeError.invalidLength(.readByGroupTypeRequest)) { try ATTPDU.decode(bytes("10 0100 ffff 00")) }
        #expect(throws: ATTDecodeError.invalidLength(.readByGroupTypeRequest)) { try ATTPDU.decode(bytes("10 0100 ffff")) }
        #expect(throws: ATTDecodeError.invalidLength(.findByTypeValueRequest)) { try ATTPDU.decode(bytes("06 0100 ffff 00")) }
    }

    @Test func truncatedVariablePDUs() throws {
        #expect(throws: ATTDecodeError.invalidLength(.writeRequest)) { try ATTPDU.decode(bytes("12 2a")) }
        #expect(throws: ATTDecodeError.invalidLength(.writeCommand)) { try ATTPDU.decode(bytes("52")) }
        #expect(throws: ATTDecodeError.invalidLength(.handleValueNotification)) { try ATTPDU.decode(bytes("1b 03")) }
        #expect(throws: ATTDecodeError.invalidLength(.handleValueIndication)) { try ATTPDU.decode(bytes("1d")) }
        #expect(throws: ATTDecodeError.invalidLength(.prepareWriteRequest)) { try ATTPDU.decode(bytes("16 2a00 00")) }
        #expect(throws: ATTDecodeError.invalidLength(.prepareWriteResponse)) { try ATTPDU.decode(bytes("17 2a00")) }
        // A signed write needs the 12 signature bytes after the handle.
        #expect(throws: ATTDecodeError.invalidLength(.signedWriteCommand)) { try ATTPDU.decode(bytes("d2 2c00 000102030405060708090a")) }
        // Zero-length values are fine.
        #expect(try ATTPDU.decode(bytes("12 2a00")) == .writeRequest(AttributeHandle(0x2A), value: []))
        #expect(try ATTPDU.decode(bytes("1b 0300")) == .handleValueNotification(AttributeHandle(3), value: []))
    }

    @Test func emptyAndUnknown() {
        #expect(throws: ATTDecodeError.empty) { try ATTPDU.decode([UInt8]()) }
        #expect(throws: ATTDecodeError.unknownOpcode(AttributeOpcode(0x20))) { try ATTPDU.decode(bytes("20 0300 0500")) }
        #expect(throws: ATTDecodeError.unknownOpcode(AttributeOpcode(0xFF))) { try ATTPDU.decode(bytes("ff")) }
    }

    /// Every possible opcode followed by 0..30 bytes of junk decodes or throws;
    /// nothing traps.
    @Test func neverTrapsOnJunk() {
        var seed: UInt32 = 0x1234_5678
        for op in 0...255 {
            for length in 0...30 {
                var raw: [UInt8] = [UInt8(op)]
                for _ in 0..<length {
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    raw.append(UInt8(truncatingIfNeeded: seed >> 24))
                }
                if let pdu = try? ATTPDU.decode(raw) {
                    #expect(pdu.opcode.rawValue == UInt8(op))
                }
            }
        }
    }

    @Test func opcodeBits() {
        #expect(AttributeOpcode.writeCommand.isCommand)
        #expect(AttributeOpcode.signedWriteCommand.isCommand)
        #expect(AttributeOpcode.signedWriteCommand.hasAuthenticationSignature)
        #expect(!AttributeOpcode.writeRequest.isCommand)
        #expect(AttributeOpcode.readBlobResponse.isResponse)
        #expect(!AttributeOpcode.readBlobRequest.isResponse)
    }

    @Test func errorCodes() {
        #expect(ATTErrorCode(0x80).isApplicationError)
        #expect(ATTErrorCode(0x9F).isApplicationError)
        #expect(!ATTErrorCode(0xA0).isApplicationError)
        #expect(ATTErrorCode(0x05) == .insufficientAuthentication)
        #expect(ATTErrorCode.insufficientEncryption.isSecurityError)
        #expect(ATTErrorCode.invalidAttributeValueLength.description == "Invalid Attribute Value Length (0x0d)")
        switch ATTErrorCode(0x0F) {
        case .insufficientEncryption: break
        default: Issue.record("0x0F should match .insufficientEncryption")
        }
    }
}
