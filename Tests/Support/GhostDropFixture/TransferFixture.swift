import BluetoothCore
import Foundation
import GhostDrop
import JSON

/// Tests/GhostDropTests/Fixtures/transfer.json, written by the simulated
/// phone's sender (Tests/Phone/phone/ghostdrop_fixture.py): for the
/// receiver's own tests and for the core's.
public struct TransferFixture {
    public enum Step { case sender([UInt8]), receiver([UInt8]), confirm, disconnect }
    public struct Session { public var receiverRandom: [[UInt8]]; public var sas: String; public var steps: [Step] }

    public var file: [UInt8]
    public var sha256: [UInt8]
    public var sessions: [Session]
    /// The first session's sender frames cut into GATT values of 20 bytes.
    public var gattValues: [[UInt8]]

    public static func load() throws -> TransferFixture {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../GhostDropTests/Fixtures/transfer.json")
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
public func queuedRandom(_ draws: [[UInt8]]) -> RandomSource {
    var queue = draws
    return RandomSource { count in
        guard !queue.isEmpty, queue[0].count == count else { return nil }
        return queue.removeFirst()
    }
}

/// The shell's side in a test: events drained, written bytes kept as a file.
public final class Shell {
    public var file: [UInt8] = []
    public var events: [GhostReceiverEvent] = []
    public var sent: [[UInt8]] = []

    public init() {}

    public func drain(_ receiver: GhostReceiver) {
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
