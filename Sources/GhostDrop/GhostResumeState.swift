import BluetoothCore
import JSON

/// Where an interrupted transfer stands, for the shell to keep under the
/// state directory: a link loss or a restart continues after the last chunk
/// the receiver holds. Only a transfer with the same ID, size, digest and
/// chunk size continues; anything else starts over.
public struct GhostResumeState: Equatable {
    public var metadata: GhostFileMetadata
    /// The next chunk wanted: chunks 0..<nextSequence are written.
    public var nextSequence: UInt64

    public init(metadata: GhostFileMetadata, nextSequence: UInt64) {
        self.metadata = metadata
        self.nextSequence = nextSequence
    }

    /// Bytes of the file already written (what the shell feeds back through
    /// `GhostReceiver.restoreWrittenBytes` after a restart).
    public var writtenBytes: Int64 {
        min(Int64(nextSequence) * Int64(metadata.chunkSize), metadata.size)
    }

    /// As a file: the metadata's JSON plus `nextSequence`.
    public var encoded: [UInt8] {
        GhostJSON.encode(.object([JSONMember("metadata", GhostJSON.payload(.metadata(metadata))),
                                  JSONMember("nextSequence", .number(JSONNumber(nextSequence)))]))
    }

    public init(decoding bytes: [UInt8]) throws(JSONError) {
        let root = try JSONParser.parse(bytes, limits: GhostJSON.limits)
        let metadata = try GhostJSON.metadata(try root.object("metadata"))
        let next = try GhostJSON.uint64(root, "nextSequence")
        guard metadata.chunkSize > 0, next <= metadata.chunkCount else {
            throw .invalidValue(key: "nextSequence", reason: "is beyond the file's \(metadata.chunkCount) chunks")
        }
        self.metadata = metadata
        self.nextSequence = next
    }
}
