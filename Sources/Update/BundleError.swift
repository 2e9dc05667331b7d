/// Why a bundle was refused. Every refusal comes before the installer marks
/// anything bootable: a bundle is installed whole and verified, or not at all.
public enum BundleError: Error, Equatable {
    /// The first 8 bytes are not `NNBUNDLE`: not an update bundle.
    case notABundle
    /// A header format this reader does not know (a newer builder).
    case unsupportedFormat(UInt16)
    /// Header flags this reader does not know are set.
    case unknownFlags(UInt16)
    /// The manifest is longer than the reader accepts (its cap), or empty.
    case manifestSize(Int)
    /// The Ed25519 signature over header and manifest does not verify with
    /// the image's public key: altered, or signed with another key.
    case badSignature
    /// The manifest's text breaks a rule (line and why).
    case malformedManifest(line: Int, reason: String)
    /// The bundle is for another board (`compatible` in the manifest).
    case incompatible(String)
    /// The manifest names an image this device has no slot for.
    case noSlot(String)
    /// An image is larger than its slot.
    case imageTooLarge(name: String, size: UInt64, capacity: UInt64)
    /// An image's bytes do not have the SHA-256 the signed manifest names.
    case hashMismatch(String)
    /// The input ended before the last image did.
    case truncated
    /// Bytes after the last image.
    case trailingBytes
    /// The public key is not 32 bytes, or libcrypto refused it.
    case badPublicKey

    /// One line for the log and the console.
    public var description: String {
        switch self {
        case .notABundle: return "not an update bundle (no NNBUNDLE header)"
        case .unsupportedFormat(let f): return "bundle format \(f) is not supported (this reader knows format \(BundleHeader.format))"
        case .unknownFlags(let f): return "unknown header flags \(f)"
        case .manifestSize(let n): return "manifest of \(n) bytes (1 to \(BundleHeader.maximumManifestBytes) allowed)"
        case .badSignature: return "bad signature: the bundle is not signed with this head unit's update key"
        case .malformedManifest(let line, let reason): return "manifest line \(line): \(reason)"
        case .incompatible(let c): return "bundle is for '\(c)', not for this board"
        case .noSlot(let name): return "no slot for image '\(name)'"
        case .imageTooLarge(let name, let size, let capacity): return "image '\(name)' has \(size) bytes, its slot \(capacity)"
        case .hashMismatch(let name): return "image '\(name)' does not match its SHA-256"
        case .truncated: return "bundle truncated"
        case .trailingBytes: return "bytes after the last image"
        case .badPublicKey: return "the update public key is not a 32-byte Ed25519 key"
        }
    }
}
