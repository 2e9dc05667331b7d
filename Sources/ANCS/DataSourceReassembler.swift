import BluetoothCore

// Where Data Source fragments become responses.
//
// The phone answers a GetNotificationAttributes or GetAppAttributes write with
// one response that may be longer than ATT_MTU - 3: it then arrives split over
// several Data Source notifications, cut at any byte (inside the header, an
// attribute ID, its 2-byte length or its value). Notifications carry no
// framing of their own, so the only way to know where a response ends is the
// attribute list of the request it answers: it is complete once every
// requested attribute has been read. Timing plays no part; a response that
// never completes is the client's per-request timeout's business.

/// The response one pending Control Point request waits for.
public struct DataSourceExpectation: Equatable {
    public struct Attribute: Equatable {
        public var id: UInt8
        /// A longer declared length marks the response as malformed.
        public var maxLength: Int

        public init(id: UInt8, maxLength: Int) {
            self.id = id
            self.maxLength = maxLength
        }
    }

    /// The bytes every response starts with: the CommandID, then the
    /// NotificationUID (u32) or the NUL-terminated AppIdentifier.
    public var header: [UInt8] {
        get { Array(headerBytes) }
        set { headerBytes = newValue[...] }
    }
    /// The header where it lies: for the client's requests, the first
    /// bytes of the command written (no array of its own per request).
    var headerBytes: ArraySlice<UInt8>
    /// The attributes the request asked for. The phone may send them in any
    /// order, but each exactly once.
    public var attributes: [Attribute]

    public init(header: [UInt8], attributes: [Attribute]) {
        headerBytes = header[...]
        self.attributes = attributes
    }

    init(headerBytes header: ArraySlice<UInt8>, attributes: [Attribute]) {
        headerBytes = header
        self.attributes = attributes
    }
}

/// A complete response: each requested attribute's value.
public struct DataSourceResponse: Equatable {
    public struct Attribute: Equatable {
        public var id: UInt8
        /// The value where it lies: in the Data Source fragment it came in
        /// (the usual case, no copy of its own) or in the bytes joined from
        /// several.
        var bytes: ArraySlice<UInt8>

        public var value: [UInt8] {
            get { Array(bytes) }
            set { bytes = newValue[...] }
        }

        public init(id: UInt8, value: [UInt8]) {
            self.id = id
            bytes = value[...]
        }

        init(id: UInt8, bytes: ArraySlice<UInt8>) {
            self.id = id
            self.bytes = bytes
        }
    }

    /// In the order they arrived.
    public var attributes: [Attribute]

    public init(attributes: [Attribute]) {
        self.attributes = attributes
    }

    public func value(of id: UInt8) -> [UInt8]? {
        bytes(of: id).map { Array($0) }
    }

    /// The value of `id` where it lies.
    func bytes(of id: UInt8) -> ArraySlice<UInt8>? {
        for attribute in attributes where attribute.id == id { return attribute.bytes }
        return nil
    }

    /// The value of `id` as text (bad UTF-8 as U+FFFD), decoded straight
    /// from where it lies.
    func text(of id: UInt8) -> String? {
        bytes(of: id).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes a phone sends as this answer to `command`, before it is
    /// cut to the MTU (for tests and tools that play the phone).
    public func encoded(answering command: ControlPointCommand) -> [UInt8] {
        var writer = ByteWriter(capacity: 64)
        writer.append(command.expectedResponse(sanityLimit: 0)?.header ?? [])
        for attribute in attributes {
            writer.u8(attribute.id)
            writer.u16(UInt16(truncatingIfNeeded: attribute.value.count))
            writer.append(attribute.bytes)
        }
        return writer.bytes
    }
}

/// What one fragment did.
public enum DataSourceProgress: Equatable {
    /// Taken in; the response needs more fragments.
    case needMore
    /// The response is complete.
    case complete(DataSourceResponse)
    /// The fragment does not answer the pending request (another command, UID
    /// or app, or a stray continuation): dropped, and the reassembler waits
    /// on for the right response.
    case discarded(reason: String)
    /// The fragment belongs to the pending request's response but breaks it
    /// (an attribute not asked for or sent twice, a length over the limit):
    /// the response is lost and the request has failed.
    case malformed(reason: String)
}

/// Rebuilds the response to one request from Data Source fragments.
public struct DataSourceReassembler {
    public let expectation: DataSourceExpectation

    private enum Stage: Equatable {
        /// `matched` header bytes seen (0 = waiting for a response to start).
        case header(matched: Int)
        case attributeID
        case lengthLow(id: UInt8)
        case lengthHigh(id: UInt8, low: UInt8)
        case value(id: UInt8, remaining: Int)
        case finished
    }

    private var stage: Stage = .header(matched: 0)
    private var received: [DataSourceResponse.Attribute] = []
    private var partValue: [UInt8] = []

    public init(expecting expectation: DataSourceExpectation) {
        self.expectation = expectation
        received.reserveCapacity(expectation.attributes.count)
    }

    /// True while part of a response has been taken in.
    public var isInsideResponse: Bool {
        switch stage {
        case .header(matched: 0), .finished: return false
        default: return true
        }
    }

    /// Takes one Data Source notification.
    public mutating func feed(_ fragment: [UInt8]) -> DataSourceProgress {
        if case .finished = stage { return .discarded(reason: "the response is already complete") }
        let startedInside = isInsideResponse
        let result = consume(fragment[...])
        if case .discarded = result, startedInside {
            // The bytes taken in earlier were a stray partial header; the new
            // fragment may be the real start of the response.
            reset()
            let retry = consume(fragment[...])
            if case .discarded = retry {
                reset()
                return result // the first reason says more than "not a start"
            }
            return retry
        }
        if case .discarded = result { reset() }
        return result
    }

    private mutating func reset() {
        stage = .header(matched: 0)
        received.removeAll()
        partValue.removeAll()
    }

    private mutating func consume(_ fragment: ArraySlice<UInt8>) -> DataSourceProgress {
        var index = fragment.startIndex
        // A request for no attributes is answered by the header alone.
        while index < fragment.endIndex || isCompleteNow {
            if isCompleteNow {
                stage = .finished
                if index < fragment.endIndex {
                    Log.debug("ancs", "Data Source: \(fragment.endIndex - index) bytes after a complete response ignored")
                }
                return .complete(DataSourceResponse(attributes: received))
            }
            if case .value(let id, let remaining) = stage {
                // Take as much of the value as this fragment holds.
                let available = min(remaining, fragment.endIndex - index)
                let part = fragment[index..<(index + available)]
                index += available
                if available < remaining {
                    partValue.append(contentsOf: part)
                    stage = .value(id: id, remaining: remaining - available)
                } else if partValue.isEmpty {
                    // The whole value in this fragment (the usual case): the
                    // response keeps it where it lies, no copy.
                    received.append(DataSourceResponse.Attribute(id: id, bytes: part))
                    stage = .attributeID
                } else {
                    partValue.append(contentsOf: part)
                    received.append(DataSourceResponse.Attribute(id: id, bytes: partValue[...]))
                    // The response keeps this buffer: the next value starts a
                    // new one (clearing a shared buffer copies it first).
                    partValue = []
                    stage = .attributeID
                }
                continue
            }
            let byte = fragment[index]
            index += 1
            switch stage {
            case .header(let matched):
                let header = expectation.headerBytes
                guard byte == header[header.startIndex + matched] else {
                    return .discarded(reason: headerMismatch(at: matched, byte: byte))
                }
                // The rest of the header, as far as this fragment holds it,
                // in one loop rather than a pass of the state machine a byte.
                var next = matched + 1
                while next < header.count && index < fragment.endIndex {
                    let b = fragment[index]
                    index += 1
                    guard b == header[header.startIndex + next] else {
                        return .discarded(reason: headerMismatch(at: next, byte: b))
                    }
                    next += 1
                }
                stage = next == header.count ? .attributeID : .header(matched: next)
            case .attributeID:
                guard expectation.attributes.contains(where: { $0.id == byte }) else {
                    return .malformed(reason: "attribute \(byte) was not asked for")
                }
                guard !received.contains(where: { $0.id == byte }) else {
                    return .malformed(reason: "attribute \(byte) sent twice")
                }
                stage = .lengthLow(id: byte)
            case .lengthLow(let id):
                stage = .lengthHigh(id: id, low: byte)
            case .lengthHigh(let id, let low):
                let length = Int(UInt16(low) | UInt16(byte) << 8)
                let limit = expectation.attributes.first(where: { $0.id == id })?.maxLength ?? 0
                guard length <= limit else {
                    return .malformed(reason: "attribute \(id) declares \(length) bytes, more than the \(limit) allowed")
                }
                if length == 0 {
                    received.append(DataSourceResponse.Attribute(id: id, value: []))
                    stage = .attributeID
                } else {
                    partValue.removeAll(keepingCapacity: true)
                    stage = .value(id: id, remaining: length)
                }
            case .value, .finished:
                return .discarded(reason: "the response is already complete")
            }
        }
        return .needMore
    }

    /// Every requested attribute is in and no attribute is half read.
    private var isCompleteNow: Bool {
        // Matched, not compared: asked once a byte.
        guard case .attributeID = stage else { return false }
        return received.count == expectation.attributes.count
    }

    private func headerMismatch(at position: Int, byte: UInt8) -> String {
        if position == 0 {
            if let command = CommandID(rawValue: byte) {
                return "a \(command) response (or a continuation) while waiting for another"
            }
            return "starts with byte 0x\(hex(byte, digits: 2)), not the pending command"
        }
        if expectation.headerBytes.first == CommandID.getNotificationAttributes.rawValue {
            return "a response for another NotificationUID"
        }
        return "a response for another app"
    }
}
