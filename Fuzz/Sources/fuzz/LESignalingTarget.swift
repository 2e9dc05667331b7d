import BluetoothCore
@testable import L2CAP

/// Commands on the LE signaling channel, from a central and from a
/// peripheral peer: every answer is one well-formed C-frame within the
/// signaling MTU that echoes the identifier, and responses are never answered.
/// Between them, our own Connection Parameter Update Requests as peripheral
/// (with input-chosen parameters) and time passing: only sets within Apple's
/// rules go out, on the peripheral link, one at a time, and each ends in
/// exactly one answer.
enum LESignalingTarget {
    static let target = FuzzTarget(name: "le-signaling", run: run, seeds: seeds)

    static let central = ConnectionHandle(0x0040)
    static let peripheral = ConnectionHandle(0x0041)

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        var l2cap = L2CAPLayer()
        let phone = BluetoothAddress("4A:11:22:33:44:55", kind: .random)!
        l2cap.linkConnected(L2CAPLink(handle: central, role: .central, peer: phone))
        l2cap.linkConnected(L2CAPLink(handle: peripheral, role: .peripheral, peer: phone))
        var commands = 0
        var now = Instant.zero
        var outstanding = 0
        while !input.isAtEnd, commands < 1_000 {
            commands += 1
            let flags = input.byte()
            let handle = flags & 0x01 == 0 ? central : peripheral
            if flags & 0x04 != 0 {
                let parameters = ConnectionParameters(intervalMin: input.u16(), intervalMax: input.u16(),
                                                      peripheralLatency: input.u16(), supervisionTimeout: input.u16())
                now = now.adding(milliseconds: Int64(input.byte()) * 500)
                l2cap.handleTimeout(now: now)
                outstanding -= drainAnswers(&l2cap)
                let sent = l2cap.requestConnectionParameters(parameters, on: handle, now: now)
                invariant(!sent || (handle == peripheral && parameters.meetsAppleGuidelines && outstanding == 0),
                          "request sent on \(handle) for \(parameters) with \(outstanding) outstanding")
                if sent { outstanding += 1 }
                var frames = 0
                while let event = l2cap.pollEvent() {
                    frames += 1
                    guard case .transmit(let h, let frame) = event else {
                        invariant(false, "a request produced \(event)")
                        continue
                    }
                    invariant(h == peripheral && frame.count >= 5 && frame[4] == 0x12, "request is not a parameter update on the peripheral link")
                    checkAnswer(frame)
                }
                invariant(frames == (sent ? 1 : 0), "\(frames) frames for \(sent ? "a request" : "no request")")
                continue
            }
            let payload: [UInt8]
            if flags & 0x02 == 0 {
                // A command with a matching length field.
                let code = input.byte(), identifier = input.byte(), body = input.chunk()
                payload = [code, identifier, UInt8(body.count & 0xFF), UInt8(body.count >> 8)] + body
            } else {
                payload = input.chunk()
            }
            l2cap.receive(BasicFrame.encode(channel: .leSignaling, payload: payload), on: handle)
            var answers = 0
            while let event = l2cap.pollEvent() {
                switch event {
                case .transmit(let h, let frame):
                    answers += 1
                    invariant(h == handle, "answered on another link")
                    checkAnswer(frame)
                    // The identifier of the command it answers (Core Vol 3 Part A 4).
                    invariant(payload.count >= 2 && frame.count >= 6 && frame[5] == payload[1], "answer does not echo the identifier")
                    invariant(!SignalingCode(payload[0]).isResponse, "a response was answered: two stacks would loop")
                    let code = SignalingCode(frame[4])
                    invariant(code == .commandReject || code.rawValue == payload[0] &+ 1, "\(code) answers \(SignalingCode(payload[0]))")
                case .updateConnectionParameters(let h, let parameters):
                    invariant(h == central, "a peripheral link changes connection parameters")
                    invariant(parameters.isValid, "invalid connection parameters accepted")
                default:
                    invariant(false, "signaling produced \(event)")
                }
            }
            invariant(answers <= 1, "\(answers) answers to one command")
            outstanding -= drainAnswers(&l2cap)
            invariant(outstanding == 0 || l2cap.nextDeadline != nil, "a request waits with no timeout")
        }
    }

    /// Drains the answers to our requests: each for the peripheral link.
    static func drainAnswers(_ l2cap: inout L2CAPLayer) -> Int {
        var count = 0
        while let answer = l2cap.pollParameterUpdateAnswer() {
            count += 1
            invariant(answer.handle == peripheral, "an answer on \(answer.handle), where we never asked")
            invariant(answer.parameters.meetsAppleGuidelines, "an answer for parameters we would never ask")
        }
        return count
    }

    /// A frame we send on the signaling channel: one well-formed command
    /// within our signaling MTU.
    static func checkAnswer(_ frame: [UInt8]) {
        guard let (channel, payload) = BasicFrame.decode(frame) else {
            invariant(false, "malformed signaling frame sent")
            return
        }
        invariant(channel == .leSignaling, "signaling answer on \(channel)")
        invariant(payload.count >= 4 && le16(Array(payload), 2) == payload.count - 4, "signaling answer length field is wrong")
        invariant(payload.count <= L2CAPLayer.signalingMTU, "signaling answer of \(payload.count) bytes exceeds our MTU")
        invariant(payload.count >= 2 && payload[payload.startIndex + 1] != 0, "answer with identifier 0")
    }

    static func seeds() -> [(String, [UInt8])] {
        func command(_ flags: UInt8, _ code: UInt8, _ identifier: UInt8, _ body: [UInt8]) -> [UInt8] {
            var s = Script()
            s.byte(flags); s.byte(code); s.byte(identifier); s.chunk(body)
            return s.bytes
        }
        func request(_ min: UInt16, _ max: UInt16, _ latency: UInt16, _ timeout: UInt16, wait: UInt8 = 0) -> [UInt8] {
            var s = Script()
            s.byte(0x05); s.u16(min); s.u16(max); s.u16(latency); s.u16(timeout); s.byte(wait)
            return s.bytes
        }
        return [
            ("parameter-update-valid", command(0, 0x12, 1, [0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01])),
            ("parameter-update-invalid", command(0, 0x12, 2, [0x28, 0x00, 0x18, 0x00, 0xF4, 0x01, 0x0A, 0x00])),
            ("parameter-update-as-peripheral", command(1, 0x12, 3, [0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01])),
            ("le-credit-connection", command(0, 0x14, 4, [0x80, 0x00, 0x40, 0x00, 0xF7, 0x00, 0xF7, 0x00, 0x0A, 0x00])),
            ("credit-connection", command(0, 0x17, 5, [0x80, 0x00, 0xF7, 0x00, 0xF7, 0x00, 0x0A, 0x00, 0x40, 0x00, 0x41, 0x00])),
            ("reconfigure", command(0, 0x19, 6, [0xF7, 0x00, 0xF7, 0x00, 0x40, 0x00])),
            ("disconnection", command(0, 0x06, 7, [0x40, 0x00, 0x41, 0x00])),
            ("credits", command(0, 0x16, 8, [0x40, 0x00, 0x05, 0x00])),
            ("unsolicited-response", command(0, 0x13, 9, [0x00, 0x00])),
            ("command-reject", command(0, 0x01, 10, [0x00, 0x00])),
            ("unknown-code", command(0, 0x7F, 11, [])),
            ("identifier-zero", command(0, 0x12, 0, [0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01])),
            ("over-mtu", command(0, 0x17, 12, [UInt8](repeating: 0x40, count: 30))),
            ("request-accepted", request(24, 40, 0, 400) + command(1, 0x13, 1, [0x00, 0x00])),
            ("request-rejected-then-again", request(24, 40, 0, 400) + command(1, 0x13, 1, [0x01, 0x00]) + request(12, 24, 0, 200)),
            ("request-not-understood", request(24, 40, 0, 400) + command(1, 0x01, 1, [0x00, 0x00])),
            ("request-times-out", request(24, 40, 0, 400) + request(24, 40, 0, 400, wait: 61)),
            ("request-outside-guidelines", request(6, 6, 0, 400)),
            ("length-mismatch", { var s = Script(); s.byte(2); s.chunk([0x12, 0x01, 0x09, 0x00, 0x18]); return s.bytes }()),
        ]
    }
}
