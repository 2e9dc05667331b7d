import BluetoothCore

/// What the HCI host reports to the layers above it.
public enum HostEvent: Equatable {
    /// Bring-up finished; the controller takes LE commands.
    case ready(ControllerInfo)
    /// The controller misbehaved (a command went unanswered, Hardware Error,
    /// bring-up failure). Every link is gone; the host resets it and reports
    /// `.ready` again when it is back.
    case controllerReset(reason: String)
    case advertisingReport(AdvertisingReport)
    case connected(Link)
    case connectionFailed(peer: BluetoothAddress, status: HCIStatus)
    case disconnected(handle: ConnectionHandle, reason: HCIStatus)
    case connectionUpdated(handle: ConnectionHandle, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16)
    case dataLengthChanged(handle: ConnectionHandle, maxTxOctets: UInt16, maxRxOctets: UInt16)
    /// A complete L2CAP frame (basic header included), reassembled from ACL
    /// fragments: where it lies in the host's receive buffer when it came
    /// in one ACL packet, so it is not copied on its way to L2CAP and ATT
    /// (a slice holds that buffer until it is let go of, a few hundred
    /// bytes to a few KiB).
    case l2capFrame(handle: ConnectionHandle, frame: ArraySlice<UInt8>)
    case encryptionChanged(handle: ConnectionHandle, status: HCIStatus, enabled: Bool)
    case encryptionKeyRefreshed(handle: ConnectionHandle, status: HCIStatus)
    case longTermKeyRequest(handle: ConnectionHandle, random: UInt64, ediv: UInt16)
    /// A command the controller refused (Command Status or Complete with an error).
    case commandFailed(opcode: HCIOpcode, status: HCIStatus)
    /// How a command sent with a tag (`Host.send(_:tag:)`) ended: the
    /// caller routes it by the tag it chose.
    case commandCompleted(CommandTag, CommandResult)
    /// The answer to `Host.readEncryptionKeySize`: the link's key size, or
    /// why not (an answer naming another link is a malformed reply).
    case encryptionKeySize(handle: ConnectionHandle, Result<ReadEncryptionKeySizeResult, CommandFailure>)
}

/// The caller's name for a command whose completion it wants back. The
/// host keeps it with the command and returns it untouched in
/// `HostEvent.commandCompleted`, so a completion is an event like any
/// other, routed by whoever polls the host, and nothing is kept that
/// points back into the caller.
public enum CommandTag: Equatable {
    /// LE Enable Encryption on a link (as central): a refusal comes back
    /// as Command Status, never as Encryption Change.
    case enableEncryption(ConnectionHandle)
    /// Any other command, numbered by its caller (tools, tests).
    case numbered(UInt32)
}

public enum TraceDirection {
    case sent, received
}

public struct HostConfiguration {
    /// A command unanswered for this long means the controller is stuck.
    public var commandTimeoutMilliseconds: Int64 = 3000
    /// Pause before bring-up is tried again after it failed.
    public var recoveryBackoffMilliseconds: Int64 = 1000
    public var recoveryBackoffMaxMilliseconds: Int64 = 30_000

    public init() {}
}
