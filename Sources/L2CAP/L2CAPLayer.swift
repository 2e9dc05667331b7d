import BluetoothCore

/// L2CAP for LE-U links, sans-I/O. It routes the fixed ATT and SMP
/// channels to their layers, answers the LE signaling channel itself and
/// runs the LE credit based channels of the services published on it
/// (`L2CAPLayer+CreditBased.swift`).
///
/// Inputs: `linkConnected`, `linkDisconnected`, `receive(frame:on:)` (complete
/// basic frames from HCI), `send(_:on:channel:)` (payloads from ATT and SMP).
/// Output: `pollEvent()` until nil. Its one signaling request, the
/// Connection Parameter Update Request of a peripheral link, has its own
/// answers (`pollParameterUpdateAnswer()`) and a response timeout
/// (`nextDeadline`, `handleTimeout(now:)`).
public struct L2CAPLayer {
    /// Our signaling MTU: the LE minimum. Larger commands get a Command
    /// Reject "signaling MTU exceeded" (Core Vol 3 Part A 4).
    public static let signalingMTU = 23

    public private(set) var links = ConnectionTable<L2CAPLink>()
    @usableFromInline var events = FIFO<L2CAPEvent>()
    @usableFromInline var pendingUpdates = ConnectionTable<PendingParameterUpdate>()
    @usableFromInline var updateAnswers = FIFO<ParameterUpdateAnswer>()
    var lastIdentifier: UInt8 = 0
    @usableFromInline var creditBased = CreditBasedChannels()

    public init() {}

    public mutating func linkConnected(_ link: L2CAPLink) {
        if links[link.handle] != nil {
            Log.warning("l2cap", "link \(link.handle) connected twice; replacing its state")
        }
        links[link.handle] = link
    }

    public mutating func linkDisconnected(_ handle: ConnectionHandle) {
        links[handle] = nil
        // A request on a link that is gone answers nothing.
        pendingUpdates[handle] = nil
        creditBasedLinkGone(handle)
    }

    /// Inlinable: the core polls on every pass, mostly finding nothing,
    /// and inlined an empty poll is a test instead of a call (see `FIFO`).
    @inlinable public mutating func pollEvent() -> L2CAPEvent? { events.popFirst() }
    /// True while `takeEvent()` has an event to give.
    @inlinable public var hasEvents: Bool { !events.isEmpty }
    /// The next event, while `hasEvents`: no optional for the caller to
    /// destroy at the end of its loop (see `FIFO.removeFirst`).
    @inlinable public mutating func takeEvent() -> L2CAPEvent { events.removeFirst() }

    /// Wraps a payload for a fixed channel into a basic frame for HCI: the
    /// header is put in front of the payload in its own storage when it
    /// has room (the bearer's PDUs do), not copied with it into a new array.
    public mutating func send(_ payload: consuming [UInt8], on handle: ConnectionHandle, channel: ChannelIdentifier) {
        guard links.contains(handle) else {
            Log.warning("l2cap", "dropping \(payload.count) bytes for \(channel) on unknown link \(handle)")
            return
        }
        guard payload.count <= Int(UInt16.max) else {
            Log.error("l2cap", "payload of \(payload.count) bytes does not fit a frame; dropped")
            return
        }
        let length = UInt16(truncatingIfNeeded: payload.count)
        payload.putInFront(length, channel.rawValue)
        events.append(.transmit(handle, payload))
    }

    /// One complete basic frame from HCI.
    public mutating func receive(_ frame: [UInt8], on handle: ConnectionHandle) { receive(frame[...], on: handle) }

    /// One complete basic frame from HCI, where it lies: the ATT payload
    /// is handed on as a slice of it.
    public mutating func receive(_ frame: ArraySlice<UInt8>, on handle: ConnectionHandle) {
        guard let link = links[handle] else {
            Log.warning("l2cap", "frame on unknown link \(handle) dropped")
            return
        }
        guard let channel = BasicFrame.channel(of: frame) else {
            Log.warning("l2cap", "malformed frame on \(handle) dropped: length field disagrees with \(frame.count) bytes")
            return
        }
        let payload = frame.dropFirst(BasicFrame.headerLength)
        switch channel {
        case .att:
            events.append(.att(handle, payload))
        case .smp:
            events.append(.smp(handle, Array(payload)))
        case .leSignaling:
            handleSignaling(payload, link: link)
        default:
            guard channel.isDynamicLE else {
                Log.info("l2cap", "frame for \(channel) on \(handle) dropped: no such channel")
                return
            }
            receiveKFrame(payload, on: channel, link: link)
        }
    }
}
