/// The fixed 16 bytes a bundle starts with (docs/UPDATES.md, "Bundle format"):
///
///     0  8  magic "NNBUNDLE"
///     8  2  format, little-endian (1)
///    10  2  flags, little-endian (0; any other value is refused)
///    12  4  manifest length in bytes, little-endian (1...4096)
///
/// then the manifest (UTF-8 text), the 64-byte Ed25519 signature over the
/// header and the manifest, and the images' bytes in the manifest's order.
/// The signature comes before the payload so that a reader knows the
/// manifest (sizes, hashes) is genuine before it writes a single byte.
public struct BundleHeader: Equatable {
    public static let magic: [UInt8] = Array("NNBUNDLE".utf8)
    public static let format: UInt16 = 1
    public static let size = 16
    public static let signatureSize = 64
    /// A manifest is a few lines; a cap keeps a hostile length from making
    /// the reader buffer megabytes before it can check the signature.
    public static let maximumManifestBytes = 4096

    public let manifestLength: Int

    public init(manifestLength: Int) { self.manifestLength = manifestLength }

    /// Parses the first `size` bytes.
    public init(_ bytes: ArraySlice<UInt8>) throws(BundleError) {
        let b = Array(bytes)
        guard b.count == BundleHeader.size, Array(b[0..<8]) == BundleHeader.magic else { throw .notABundle }
        let format = UInt16(b[8]) | UInt16(b[9]) << 8
        guard format == BundleHeader.format else { throw .unsupportedFormat(format) }
        let flags = UInt16(b[10]) | UInt16(b[11]) << 8
        guard flags == 0 else { throw .unknownFlags(flags) }
        let length = Int(b[12]) | Int(b[13]) << 8 | Int(b[14]) << 16 | Int(b[15]) << 24
        guard length >= 1, length <= BundleHeader.maximumManifestBytes else { throw .manifestSize(length) }
        manifestLength = length
    }

    public var bytes: [UInt8] {
        let n = UInt32(manifestLength)
        return BundleHeader.magic + [UInt8(BundleHeader.format & 0xFF), UInt8(BundleHeader.format >> 8), 0, 0,
                                     UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)]
    }
}
