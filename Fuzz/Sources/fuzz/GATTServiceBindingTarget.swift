import BluetoothCore
@testable import ATT
@testable import GATT

/// The NavigationNotifier service bound on one bearer, as the head unit's
/// service clients use it: reads, writes, subscriptions and discoveries by
/// UUID, while the phone answers each request with fuzzed responses (or
/// error responses), its database changes (forget), time passes and the
/// link goes down.
///
/// Properties: every operation and discovery completes exactly once, and
/// none is left waiting once the bearer is closed; a found service never
/// holds a handle of 0.
enum GATTServiceBindingTarget {
    static let target = FuzzTarget(name: "gatt-service-binding", run: run, seeds: seeds)

    static let service = BluetoothUUID("AB312B45-A8A1-4BCE-97E7-7D3D97FB541E")!
    static let characteristics = [
        BluetoothUUID("0168FE9F-4277-4AE7-AC4A-3051F3A0C106")!, // SERVER NAME
        BluetoothUUID("4C234FB3-71AB-4855-92D4-EC58BF163290")!, // PAIRED CLIENT NAME
        BluetoothUUID(0x2A05),
        BluetoothUUID(0x2A2B),
    ]

    typealias Ledger = GATTBearerTarget.Ledger

    /// Drains the bearer as its owner does: the binding sees each
    /// completion first; the rest are the operations'.
    static func drain(_ bearer: GATTBearer, _ binding: GATTServiceBinding, _ ledger: Ledger) {
        while let event = bearer.pollEvent() {
            switch event {
            case let .completed(id, result):
                if !binding.handle(id, result) { ledger.completed(id) }
            case let .valueReceived(handle, _, _):
                _ = binding.characteristic(notifiedAt: handle)
            default:
                break
            }
        }
    }

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let bearer = GATTBearer(handle: ConnectionHandle(0x0040), database: GATTBearerTarget.database)
        let binding = GATTServiceBinding(service: service, bearer: bearer)
        let ledger = Ledger()
        var now = Instant(milliseconds: 1_000)
        var lastRequest: UInt8 = AttributeOpcode.findByTypeValueRequest.rawValue
        var operations = 0
        while !input.isAtEnd, operations < 500 {
            operations += 1
            let op = input.byte()
            switch op % 8 {
            case 0, 1, 2:
                // An answer to the request outstanding: its response opcode
                // and fuzzed parameters, or an Error Response for it.
                if op & 0x80 == 0 {
                    bearer.receive([lastRequest &+ 1] + input.chunk())
                } else {
                    bearer.receive([AttributeOpcode.errorResponse.rawValue, lastRequest] + input.bytes(3))
                }
            case 3:
                bearer.receive(input.chunk())
            case 4:
                let uuid = characteristics[Int(input.byte()) % characteristics.count]
                switch input.byte() % 5 {
                case 0: ledger.issued(binding.read(uuid))
                case 1: ledger.issued(binding.write(uuid, value: input.chunk()))
                case 2: ledger.issued(binding.subscribe(uuid))
                case 3: ledger.issued(binding.unsubscribe(uuid))
                default: ledger.issued(binding.discover())
                }
            case 5:
                binding.forget()
            case 6:
                now = now.adding(milliseconds: Int64(input.u16()) * 100)
                bearer.handleTimeout(now: now)
            default:
                bearer.close()
            }
            // Events first: the binding's walk queues its next request.
            drain(bearer, binding, ledger)
            while let pdu = bearer.pollTransmit(now: now) {
                if let opcode = pdu.first.map(AttributeOpcode.init), !opcode.isResponse, !opcode.isCommand,
                   !opcode.isServerInitiated, opcode != .handleValueConfirmation {
                    lastRequest = opcode.rawValue
                }
            }
            for (uuid, handles) in binding.characteristics ?? [:] {
                invariant(handles.value.value != 0 && handles.cccd?.value != 0, "\(uuid) found at handle 0")
            }
        }
        bearer.close()
        drain(bearer, binding, ledger)
        invariant(ledger.outstanding == 0, "\(ledger.outstanding) operations never completed")
    }

    static func seeds() -> [(String, [UInt8])] {
        func answer(_ bytes: [UInt8]) -> [UInt8] { var s = Script(); s.byte(0); s.chunk(bytes); return s.bytes }
        func error(_ code: UInt8) -> [UInt8] { [0x80, 0x0A, 0x00, code] }
        func operation(_ kind: UInt8, _ characteristic: UInt8 = 0, _ extra: [UInt8] = []) -> [UInt8] {
            [4, characteristic, kind] + extra
        }
        let nn = H4Target.nnServiceLE
        let serverName = characteristics[0].fullLittleEndian
        let pairedName = characteristics[1].fullLittleEndian
        // The whole walk: service, its end, two characteristics, the CCCD.
        let discovery = answer([0x28, 0x00, 0x30, 0x00]) + error(0x0A)
            + answer([0x15, 0x29, 0x00, 0x02, 0x2A, 0x00] + serverName)
            + answer([0x15, 0x2B, 0x00, 0x1A, 0x2C, 0x00] + pairedName) + error(0x0A)
            + answer([0x01, 0x2D, 0x00, 0x02, 0x29]) + error(0x0A)
        return [
            ("read-after-discovery", operation(0) + discovery + answer(Array("IPHONE".utf8))),
            ("write-and-subscribe", operation(1, 1, [2, 0x48, 0x55]) + operation(2, 1) + discovery + answer([]) + answer([])),
            ("discover-absent", operation(4) + error(0x0A) + operation(0)),
            ("discover-refused", operation(4) + error(0x05) + operation(0)),
            ("forget-during-discovery", operation(4) + [5] + discovery + error(0x0A)),
            ("close-during-discovery", operation(0) + answer([0x28, 0x00, 0x30, 0x00]) + [7]),
            ("timeout", operation(3, 1) + [6, 0x30, 0x01]),
            ("no-cccd", operation(2, 0) + discovery),
        ]
    }
}
