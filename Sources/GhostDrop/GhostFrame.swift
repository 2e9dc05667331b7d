/// The kind byte of a GHST frame header (GhostDrop's `GhostFrameKind`).
public enum GhostFrameKind: UInt8, CaseIterable {
    case hello = 0x01
    case helloAck = 0x02
    case verify = 0x03
    case verifyAck = 0x04
    case metadata = 0x05
    case data = 0x06
    case ack = 0x07
    case resume = 0x08
    case complete = 0x09
    case cancel = 0x0A
    case ping = 0x0B
    case encrypted = 0x0C

    /// The one key of the JSON body's object. Data frames are the exception
    /// to "named after the kind": their member is `dataPayload`.
    public var jsonKey: String {
        switch self {
        case .hello: return "hello"
        case .helloAck: return "helloAck"
        case .verify: return "verify"
        case .verifyAck: return "verifyAck"
        case .metadata: return "metadata"
        case .data: return "dataPayload"
        case .ack: return "ack"
        case .resume: return "resume"
        case .complete: return "complete"
        case .cancel: return "cancel"
        case .ping: return "ping"
        case .encrypted: return "encrypted"
        }
    }
}

/// `GhostCapabilities`: what a peer can do. The receiver's also sits in the
/// capabilities characteristic and the advertisement.
public struct GhostCapabilities: Equatable {
    public var supportsL2CAP: Bool
    public var maxChunk: Int
    public var maxWindow: Int
    public var protocolVersion: Int

    public init(supportsL2CAP: Bool, maxChunk: Int = 180, maxWindow: Int = 32, protocolVersion: Int = 1) {
        self.supportsL2CAP = supportsL2CAP
        self.maxChunk = maxChunk
        self.maxWindow = maxWindow
        self.protocolVersion = protocolVersion
    }
}

/// `hello`: the sender's half of the handshake.
public struct GhostHello: Equatable {
    public var sessionID: GhostUUID
    /// `DeviceID`, a struct around a UUID: `{"rawValue":"…"}` on the wire.
    public var deviceID: GhostUUID
    /// X9.63 uncompressed P-256 point, 65 bytes.
    public var ephemeralPublicKey: [UInt8]
    public var nonce: [UInt8]
    public var capabilities: GhostCapabilities

    public init(sessionID: GhostUUID, deviceID: GhostUUID, ephemeralPublicKey: [UInt8], nonce: [UInt8], capabilities: GhostCapabilities) {
        self.sessionID = sessionID
        self.deviceID = deviceID
        self.ephemeralPublicKey = ephemeralPublicKey
        self.nonce = nonce
        self.capabilities = capabilities
    }
}

/// `helloAck`: the receiver's half.
public struct GhostHelloAck: Equatable {
    public var sessionID: GhostUUID
    public var ephemeralPublicKey: [UInt8]
    public var nonce: [UInt8]

    public init(sessionID: GhostUUID, ephemeralPublicKey: [UInt8], nonce: [UInt8]) {
        self.sessionID = sessionID
        self.ephemeralPublicKey = ephemeralPublicKey
        self.nonce = nonce
    }
}

/// `verify`: the sender's transcript hash and SAS, sent in the clear.
public struct GhostVerification: Equatable {
    public var transcriptHash: [UInt8]
    public var sasCode: String

    public init(transcriptHash: [UInt8], sasCode: String) {
        self.transcriptHash = transcriptHash
        self.sasCode = sasCode
    }
}

/// `metadata` (`FileMetadata`): what is about to be sent.
public struct GhostFileMetadata: Equatable {
    public var transferID: GhostUUID
    public var filename: String
    public var size: Int64
    public var mimeType: String
    public var sha256: [UInt8]
    public var chunkSize: Int

    public init(transferID: GhostUUID, filename: String, size: Int64, mimeType: String, sha256: [UInt8], chunkSize: Int) {
        self.transferID = transferID
        self.filename = filename
        self.size = size
        self.mimeType = mimeType
        self.sha256 = sha256
        self.chunkSize = chunkSize
    }

    /// How many data chunks the file takes.
    public var chunkCount: UInt64 {
        guard chunkSize > 0, size > 0 else { return 0 }
        return (UInt64(size) + UInt64(chunkSize) - 1) / UInt64(chunkSize)
    }
}

/// `ack` (`GhostAck`): every chunk up to `cumulativeSequence` is held; bit
/// i of `nackBitmap` asks again for chunk cumulativeSequence + 1 + i.
public struct GhostAck: Equatable {
    public var cumulativeSequence: UInt64
    public var nackBitmap: UInt64

    public init(cumulativeSequence: UInt64, nackBitmap: UInt64 = 0) {
        self.cumulativeSequence = cumulativeSequence
        self.nackBitmap = nackBitmap
    }
}

/// `resume` (`GhostResumeRequest`): the receiver already holds chunks
/// 0...lastConfirmedSequence of this transfer.
public struct GhostResume: Equatable {
    public var transferID: GhostUUID
    public var lastConfirmedSequence: UInt64

    public init(transferID: GhostUUID, lastConfirmedSequence: UInt64) {
        self.transferID = transferID
        self.lastConfirmedSequence = lastConfirmedSequence
    }
}

/// `complete` (`TransferCompletePayload`): the sender's digest of the whole file.
public struct GhostComplete: Equatable {
    public var transferID: GhostUUID
    public var sha256: [UInt8]

    public init(transferID: GhostUUID, sha256: [UInt8]) {
        self.transferID = transferID
        self.sha256 = sha256
    }
}

/// One GHST frame, decoded.
public enum GhostFrame: Equatable {
    case hello(GhostHello)
    case helloAck(GhostHelloAck)
    case verify(GhostVerification)
    case verifyAck(accepted: Bool)
    case metadata(GhostFileMetadata)
    /// A data chunk; after the handshake `payload` is AES-GCM combined
    /// (nonce ‖ ciphertext ‖ tag) under the data sequence.
    case data(sequence: UInt64, payload: [UInt8])
    case ack(GhostAck)
    case resume(GhostResume)
    case complete(GhostComplete)
    case cancel(reason: String)
    case ping(id: UInt32)
    /// A control frame sealed whole: `combined` opens to a GHST frame.
    case encrypted(sequence: UInt64, combined: [UInt8])

    public var kind: GhostFrameKind {
        switch self {
        case .hello: return .hello
        case .helloAck: return .helloAck
        case .verify: return .verify
        case .verifyAck: return .verifyAck
        case .metadata: return .metadata
        case .data: return .data
        case .ack: return .ack
        case .resume: return .resume
        case .complete: return .complete
        case .cancel: return .cancel
        case .ping: return .ping
        case .encrypted: return .encrypted
        }
    }
}
