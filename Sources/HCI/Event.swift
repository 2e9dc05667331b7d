import BluetoothCore

/// The events the host understands, decoded from an event packet. Anything
/// else stays `.other` so it can still be traced and logged.
public enum HCIEvent: Equatable {
    case commandComplete(numCommandPackets: UInt8, opcode: HCIOpcode, returnParameters: [UInt8])
    case commandStatus(status: HCIStatus, numCommandPackets: UInt8, opcode: HCIOpcode)
    case disconnectionComplete(status: HCIStatus, handle: ConnectionHandle, reason: HCIStatus)
    case encryptionChange(status: HCIStatus, handle: ConnectionHandle, enabled: Bool)
    case encryptionKeyRefreshComplete(status: HCIStatus, handle: ConnectionHandle)
    case readRemoteVersionComplete(status: HCIStatus, handle: ConnectionHandle, version: UInt8, manufacturer: UInt16, subversion: UInt16)
    case hardwareError(code: UInt8)
    case numberOfCompletedPackets(CompletedPackets)
    case dataBufferOverflow(linkType: UInt8)
    case le(LEMetaEvent)
    case other(code: UInt8, parameters: [UInt8])

    public static let codeDisconnectionComplete: UInt8 = 0x05
    public static let codeEncryptionChange: UInt8 = 0x08
    public static let codeReadRemoteVersionComplete: UInt8 = 0x0C
    public static let codeCommandComplete: UInt8 = 0x0E
    public static let codeCommandStatus: UInt8 = 0x0F
    public static let codeHardwareError: UInt8 = 0x10
    public static let codeNumberOfCompletedPackets: UInt8 = 0x13
    public static let codeDataBufferOverflow: UInt8 = 0x1A
    public static let codeEncryptionKeyRefreshComplete: UInt8 = 0x30
    public static let codeLEMeta: UInt8 = 0x3E

    public static func == (a: HCIEvent, b: HCIEvent) -> Bool {
        switch (a, b) {
        case let (.numberOfCompletedPackets(x), .numberOfCompletedPackets(y)): return x == y
        case let (.commandComplete(a1, a2, a3), .commandComplete(b1, b2, b3)): return a1 == b1 && a2 == b2 && a3 == b3
        case let (.commandStatus(a1, a2, a3), .commandStatus(b1, b2, b3)): return a1 == b1 && a2 == b2 && a3 == b3
        case let (.disconnectionComplete(a1, a2, a3), .disconnectionComplete(b1, b2, b3)): return a1 == b1 && a2 == b2 && a3 == b3
        case let (.encryptionChange(a1, a2, a3), .encryptionChange(b1, b2, b3)): return a1 == b1 && a2 == b2 && a3 == b3
        case let (.encryptionKeyRefreshComplete(a1, a2), .encryptionKeyRefreshComplete(b1, b2)): return a1 == b1 && a2 == b2
        case let (.readRemoteVersionComplete(a1, a2, a3, a4, a5), .readRemoteVersionComplete(b1, b2, b3, b4, b5)):
            return a1 == b1 && a2 == b2 && a3 == b3 && a4 == b4 && a5 == b5
        case let (.hardwareError(x), .hardwareError(y)): return x == y
        case let (.dataBufferOverflow(x), .dataBufferOverflow(y)): return x == y
        case let (.le(x), .le(y)): return x == y
        case let (.other(a1, a2), .other(b1, b2)): return a1 == b1 && a2 == b2
        default: return false
        }
    }

    /// Decodes an event packet body (event code, length, parameters). Returns
    /// nil when the length byte disagrees with the packet or a known event is
    /// too short: the caller logs and drops it.
    public init?(body: [UInt8]) { self.init(body: body[...]) }

    /// The same, read where the body lies (in the H4 framer's buffer).
    public init?(body: ArraySlice<UInt8>) {
        var r = ByteReader(body)
        guard let code = r.u8(), let length = r.u8(), Int(length) == r.remainingCount else { return nil }
        switch code {
        case HCIEvent.codeCommandComplete:
            guard let n = r.u8(), let op = r.u16() else { return nil }
            self = .commandComplete(numCommandPackets: n, opcode: HCIOpcode(op), returnParameters: Array(r.rest()))
        case HCIEvent.codeCommandStatus:
            guard let s = r.u8(), let n = r.u8(), let op = r.u16(), r.isAtEnd else { return nil }
            self = .commandStatus(status: HCIStatus(s), numCommandPackets: n, opcode: HCIOpcode(op))
        case HCIEvent.codeDisconnectionComplete:
            guard let s = r.u8(), let h = r.u16(), let reason = r.u8() else { return nil }
            self = .disconnectionComplete(status: HCIStatus(s), handle: ConnectionHandle(h), reason: HCIStatus(reason))
        case HCIEvent.codeEncryptionChange, 0x59: // 0x59: Encryption Change v2 adds the key size
            guard let s = r.u8(), let h = r.u16(), let on = r.u8() else { return nil }
            self = .encryptionChange(status: HCIStatus(s), handle: ConnectionHandle(h), enabled: on != 0)
        case HCIEvent.codeEncryptionKeyRefreshComplete:
            guard let s = r.u8(), let h = r.u16() else { return nil }
            self = .encryptionKeyRefreshComplete(status: HCIStatus(s), handle: ConnectionHandle(h))
        case HCIEvent.codeReadRemoteVersionComplete:
            guard let s = r.u8(), let h = r.u16(), let v = r.u8(), let m = r.u16(), let sub = r.u16() else { return nil }
            self = .readRemoteVersionComplete(status: HCIStatus(s), handle: ConnectionHandle(h), version: v, manufacturer: m, subversion: sub)
        case HCIEvent.codeHardwareError:
            guard let c = r.u8() else { return nil }
            self = .hardwareError(code: c)
        case HCIEvent.codeNumberOfCompletedPackets:
            guard let n = r.u8(), r.remainingCount == Int(n) * 4 else { return nil }
            self = .numberOfCompletedPackets(CompletedPackets(bytes: r.rest()))
        case HCIEvent.codeDataBufferOverflow:
            guard let t = r.u8() else { return nil }
            self = .dataBufferOverflow(linkType: t)
        case HCIEvent.codeLEMeta:
            guard let meta = LEMetaEvent(parameters: r.rest()) else { return nil }
            self = .le(meta)
        default:
            self = .other(code: code, parameters: Array(r.rest()))
        }
    }
}
