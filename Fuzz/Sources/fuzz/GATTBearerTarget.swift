import BluetoothCore
@testable import ATT
@testable import GATT
import SMP

/// One ATT bearer with the head unit's database: the phone's requests to our
/// server and its responses to our client procedures, interleaved with new
/// procedures, notifications, time and the link going down.
///
/// Properties: every PDU we send decodes and fits the ATT_MTU; every client
/// procedure completes exactly once (as an event under its id); the bearer's count of pending requests
/// matches the procedures not yet completed.
enum GATTBearerTarget {
    static let target = FuzzTarget(name: "gatt-bearer", run: run, seeds: seeds)

    static let database = GATTDatabase(deviceName: "Head Unit", aesCMAC: { key, message in
        (try? SMPCrypto.aesCMAC(key: key, message: message)) ?? [UInt8](repeating: 0, count: 16)
    })

    /// Counts completions per request id.
    final class Ledger {
        var completions: [GATTRequestID: Int] = [:]

        func issued(_ id: GATTRequestID) {
            invariant(completions[id] == nil, "\(id) issued twice")
            completions[id] = 0
        }

        func completed(_ id: GATTRequestID) {
            guard let count = completions[id] else { return invariant(false, "\(id) completed but never issued") }
            completions[id] = count + 1
            invariant(count == 0, "\(id) completed \(count + 1) times")
        }

        var outstanding: Int { completions.values.filter { $0 == 0 }.count }
    }

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let bearer = GATTBearer(handle: ConnectionHandle(0x0040), database: database)
        let ledger = Ledger()
        var now = Instant(milliseconds: 1_000)
        var lastRequest: UInt8 = AttributeOpcode.readRequest.rawValue
        var operations = 0
        while !input.isAtEnd, operations < 500 {
            operations += 1
            let op = input.byte()
            switch op % 8 {
            case 0, 1:
                bearer.receive(input.chunk())
            case 2, 3:
                // An answer to the request outstanding: its response opcode
                // and fuzzed parameters, or an Error Response for it.
                if op & 0x80 == 0 {
                    bearer.receive([lastRequest &+ 1] + input.chunk())
                } else {
                    bearer.receive([AttributeOpcode.errorResponse.rawValue, lastRequest] + input.bytes(3))
                }
            case 4, 5:
                startProcedure(&input, bearer, ledger)
            case 6:
                now = now.adding(milliseconds: Int64(input.u16()) * 100)
                bearer.handleTimeout(now: now)
            default:
                if op & 0x80 != 0 {
                    bearer.close()
                } else {
                    bearer.indicateServiceChanged(AttributeHandleRange(input.u16(), input.u16()))
                }
            }
            while let pdu = bearer.pollTransmit(now: now) {
                invariant(pdu.count <= bearer.mtu, "sent \(pdu.count) bytes with an ATT_MTU of \(bearer.mtu)")
                guard let decoded = try? ATTPDU.decode(pdu) else {
                    invariant(false, "sent a PDU that does not decode: \(hexString(pdu))")
                    return
                }
                let opcode = decoded.opcode
                if !opcode.isResponse && !opcode.isCommand && !opcode.isServerInitiated && opcode != .handleValueConfirmation {
                    lastRequest = opcode.rawValue
                }
            }
            while let event = bearer.pollEvent() {
                if case .completed(let id, _) = event { ledger.completed(id) }
            }
            invariant(bearer.pendingRequestCount == ledger.outstanding,
                      "bearer has \(bearer.pendingRequestCount) requests pending, \(ledger.outstanding) not completed")
        }
        bearer.close()
        while let event = bearer.pollEvent() {
            if case .completed(let id, _) = event { ledger.completed(id) }
        }
        invariant(ledger.outstanding == 0, "\(ledger.outstanding) procedures never completed")
    }

    static func startProcedure(_ input: inout FuzzInput, _ bearer: GATTBearer, _ ledger: Ledger) {
        let range = AttributeHandleRange(input.u16(), input.u16())
        let id: GATTRequestID
        switch input.byte() % 10 {
        case 0: id = bearer.exchangeMTU()
        case 1: id = bearer.discoverAllPrimaryServices()
        case 2:
            let uuid = input.bool() ? BluetoothUUID(input.u16()) : BluetoothUUID(littleEndian: input.bytes(16)[...]) ?? BluetoothUUID(0x1800)
            id = bearer.discoverPrimaryServices(uuid: uuid)
        case 3: id = bearer.discoverCharacteristics(in: range)
        case 4: id = bearer.discoverDescriptors(in: range)
        case 5: id = bearer.read(range.start)
        case 6: id = bearer.write(range.start, value: input.chunk())
        case 7: id = bearer.writeWithoutResponse(range.start, value: input.chunk())
        case 8: id = bearer.subscribe(cccd: range.end, indications: input.bool())
        default: id = bearer.unsubscribe(cccd: range.end)
        }
        ledger.issued(id)
    }

    static func seeds() -> [(String, [UInt8])] {
        func pdu(_ bytes: [UInt8]) -> [UInt8] { var s = Script(); s.byte(0); s.chunk(bytes); return s.bytes }
        func answer(_ bytes: [UInt8]) -> [UInt8] { var s = Script(); s.byte(2); s.chunk(bytes); return s.bytes }
        func start(_ kind: UInt8, _ a: UInt16 = 0x0001, _ b: UInt16 = 0xFFFF, _ extra: [UInt8] = []) -> [UInt8] {
            var s = Script(); s.byte(4); s.u16(a); s.u16(b); s.byte(kind); s.raw(extra); return s.bytes
        }
        let nn = H4Target.nnServiceLE
        return [
            // The phone discovers us.
            ("server-mtu", pdu([0x02, 0x05, 0x02])),
            ("server-primary-services", pdu([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28])),
            ("server-characteristics", pdu([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28])),
            ("server-find-information", pdu([0x04, 0x01, 0x00, 0xFF, 0xFF])),
            ("server-find-by-type-value", pdu([0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x00, 0x18])),
            ("server-read-name", pdu([0x0A, 0x03, 0x00]) + pdu([0x0C, 0x03, 0x00, 0x05, 0x00])),
            ("server-read-multiple", pdu([0x0E, 0x03, 0x00, 0x05, 0x00])),
            ("server-database-hash", pdu([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x2A, 0x2B])),
            ("server-robust-caching", pdu([0x12, 0x0B, 0x00, 0x01]) + pdu([0x0A, 0x03, 0x00])),
            ("server-cccd-and-indication", pdu([0x12, 0x09, 0x00, 0x02, 0x00]) + [7, 1, 0, 0xFF, 0xFF] + pdu([0x1E])),
            ("server-prepare-write", pdu([0x16, 0x03, 0x00, 0x00, 0x00, 0x41]) + pdu([0x18, 0x01])),
            ("server-signed-write", pdu([0xD2, 0x03, 0x00, 0x41] + [UInt8](repeating: 0, count: 12))),
            ("server-unknown", pdu([0x3F, 0x01])),
            // Our client discovers the phone.
            ("client-mtu", start(0) + answer([0xF7, 0x00])),
            ("client-services", start(1) + answer([0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18, 0x06, 0x00, 0x09, 0x00, 0x01, 0x18])
                + answer([0x14, 0x0A, 0x00, 0x20, 0x00] + nn) + [0x82, 0x21, 0x00, 0x0A]),
            ("client-service-by-uuid", start(2, 1, 0xFFFF, [0x00] + nn) + answer([0x0A, 0x00, 0x20, 0x00])),
            ("client-characteristics", start(3, 0x000A, 0x0020) + answer([0x07, 0x0B, 0x00, 0x1A, 0x0C, 0x00, 0x00, 0x2A])
                + answer([0x15, 0x0D, 0x00, 0x12, 0x0E, 0x00] + nn)),
            ("client-descriptors", start(4, 0x000F, 0x0011) + answer([0x01, 0x0F, 0x00, 0x02, 0x29, 0x10, 0x00, 0x01, 0x29])),
            ("client-long-read", start(5, 0x000C, 0) + answer([UInt8](repeating: 0x41, count: 22)) + answer([0x42, 0x43])),
            ("client-write", start(6, 0x000E, 0, [3, 0x48, 0x55, 0x2D]) + answer([])),
            ("client-subscribe-notify", start(8, 0x000E, 0x000F, [0]) + answer([]) + pdu([0x1B, 0x0E, 0x00, 0x41])),
            ("client-indication", pdu([0x1D, 0x0E, 0x00, 0x41]) + pdu([0x1D, 0x0E, 0x00])),
            ("client-error", start(5, 0x000C, 0) + [0x82, 0x0C, 0x00, 0x0F]),
            ("client-timeout", start(1) + [6, 0x30, 0x01] + pdu([0x11, 0x06])),
        ]
    }
}
