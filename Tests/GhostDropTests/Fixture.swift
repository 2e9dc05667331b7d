import BluetoothCore
import Foundation
import GhostDrop
import JSON

/// Tests/GhostDropTests/Fixtures/transfer.json, written by the simulated
/// phone's sender (Tests/Phone/phone/ghostdrop_fixture.py).
struct TransferFixture {
    enum Step { case sender([UInt8]), receiver([UInt8]), confirm, disconnect }
    struct Session { var receiverRandom: [[UInt8]]; var sas: String; var steps: [Step] }

    var file: [UInt8]
    var sha256: [UInt8]
    var sessions: [Session]
    /// The first session's sender frames cut into GATT values of 20 bytes.
    var gattValues: [[UInt8]]

    static func load() throws -> TransferFixture {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/transfer.json")
        let root = try JSONParser.parse(Array(try Data(contentsOf: url)), limits: JSONLimits(maxSize: 1 << 20, maxDepth: 8, maxElements: 10_000))
        func hex(_ s: String) -> [UInt8] { bytesFromHex(s)! }
        var sessions: [Session] = []
        for s in try root.optionalArray("sessions") ?? [] {
            var steps: [Step] = []
            for step in try s.optionalArray("steps") ?? [] {
                if let from = try step.optionalString("from") {
                    steps.append(from == "sender" ? .sender(hex(try step.string("bytes"))) : .receiver(hex(try step.string("bytes"))))
                } else if try step.optionalBool("confirm") == true {
                    steps.append(.confirm)
                } else {
                    steps.append(.disconnect)
                }
            }
            let random = try (s.optionalArray("receiverRandom") ?? []).map { value -> [UInt8] in
                guard case .string(let text) = value else { throw JSONError.missing(key: "receiverRandom") }
                return hex(text)
            }
            sessions.append(Session(receiverRandom: random, sas: try s.string("sas"), steps: steps))
        }
        let gatt = try (root.optionalArray("gattValues") ?? []).map { value -> [UInt8] in
            guard case .string(let text) = value else { throw JSONError.missing(key: "gattValues") }
            return hex(text)
        }
        return TransferFixture(file: hex(try root.string("file")), sha256: hex(try root.string("sha256")), sessions: sessions,
                               gattValues: gatt)
    }
}

/// Hands out the given byte strings in order, one per request.
func queuedRandom(_ draws: [[UInt8]]) -> RandomSource {
    var queue = draws
    return RandomSource { count in
        guard !queue.isEmpty, queue[0].count == count else { return nil }
        return queue.removeFirst()
    }
}

/// The shell's side in a test: events drained, written bytes kept as a file.
final class Shell {
    var file: [UInt8] = []
    var events: [GhostReceiverEvent] = []
    var sent: [[UInt8]] = []

    func drain(_ receiver: GhostReceiver) {
        while let frame = receiver.pollFrame() { sent.append(frame) }
        while let event = receiver.pollEvent() {
            events.append(event)
            switch event {
            case .incoming(_, let start): file = Array(file.prefix(Int(start)))
            case .write(let offset, let bytes):
                precondition(Int(offset) == file.count, "write at \(offset) with \(file.count) bytes held")
                file += bytes
            default: break
            }
        }
    }
}
