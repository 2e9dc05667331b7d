import BluetoothCore
import JSON
@testable import NotifBridge

/// A receiver with a clock, a phone and a key store, and what came out of it.
final class Harness {
    let receiver = Receiver()
    var phone = TestPhone()
    var now = Instant(milliseconds: 1_000_000)
    /// What the key store answers.
    var storeSucceeds = true
    /// Every key file written.
    var stored: [[UInt8]] = []
    var acks: [[UInt8]] = []
    /// Reverse frames reassembled from the indications.
    var frames: [[UInt8]] = []
    var events: [NotifBridgeEvent] = []
    /// Everything indicated, in order.
    var indications: [[UInt8]] = []
    private var reverse = FrameAssembler(channel: "test", capacity: 1 << 20)
    private var nextChunk = 1

    init(subscribe: Bool = true) {
        if subscribe { receiver.subscribed(now: now) }
        drain()
    }

    /// Collects the outputs; the key store answers each request.
    func drain() {
        while let output = receiver.pollOutput() {
            switch output {
            case .indicate(let value):
                indications.append(value)
                if ChunkAck.isAck(value) {
                    acks.append(value)
                } else if case .frame(let frame) = reverse.take(value[...]) {
                    frames.append(frame)
                }
            case .storeKeys(let bytes):
                if storeSucceeds { stored.append(bytes) }
                receiver.keysStored(ok: storeSucceeds)
            case .event(let event):
                events.append(event)
            }
        }
    }

    func writeKeys(_ frame: [UInt8], size: Int = 244) {
        for value in TestPhone.values(frame, size: size) { receiver.written(.keyExchange, value: value, now: now) }
        drain()
    }

    func writeEnvelope(_ frame: [UInt8]) {
        for value in TestPhone.wrapped(frame, firstChunk: nextChunk) {
            receiver.written(.notifications, value: value, now: now)
            nextChunk += 1
        }
        drain()
    }

    func advance(seconds: Int64) {
        now = now.adding(seconds: seconds)
        while let deadline = receiver.nextDeadline, deadline <= now {
            receiver.handleTimeout(now: deadline)
        }
        drain()
    }

    /// Prepare and activate `exchange` (receipts 100+exchange and 200+exchange).
    func key(_ exchange: Int) {
        writeKeys(phone.prepare(exchange: exchange, receipt: 100 + exchange))
        writeKeys(phone.activate(exchange: exchange, receipt: 200 + exchange))
    }

    static func receipt(_ n: Int) -> String { #"{"kind":"notifbridge.accepted.v1","id":""# + TestPhone.uuid(n) + #""}"# }

    var frameTexts: [String] { frames.map { String(decoding: $0, as: UTF8.self) } }

    /// Forgets what was seen so far.
    func clear() {
        acks = []
        frames = []
        events = []
        indications = []
    }
}
