/// What a bundle holds, as its signed manifest says (docs/UPDATES.md):
///
///     format 1
///     compatible qemu-virt
///     version 2026.11.27-83f970c
///     image root 13107200 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
///
/// One `key value...` per line, words separated by one space, every line
/// ended by a newline; `format`, `compatible` and `version` exactly once,
/// `image NAME SIZE SHA256` one to four times, in payload order. Anything
/// else is refused, so a newer manifest is never half understood.
public struct BundleManifest: Equatable {
    public struct Image: Equatable {
        /// The slot kind it goes to: `root` or `boot`.
        public let name: String
        public let size: UInt64
        public let sha256: [UInt8]

        public init(name: String, size: UInt64, sha256: [UInt8]) {
            self.name = name
            self.size = size
            self.sha256 = sha256
        }
    }

    public static let manifestFormat = 1
    public static let maximumImages = 4
    public static let maximumWordBytes = 64

    /// The board it is for (a board.conf's BOARD_NAME).
    public let compatible: String
    /// The image version it installs (`HEADUNIT_IMAGE_VERSION`).
    public let version: String
    public let images: [Image]

    public init(compatible: String, version: String, images: [Image]) {
        self.compatible = compatible
        self.version = version
        self.images = images
    }

    /// The manifest's text, as the builder writes it.
    public var text: String {
        var s = "format \(BundleManifest.manifestFormat)\ncompatible \(compatible)\nversion \(version)\n"
        for image in images { s += "image \(image.name) \(image.size) \(Hex.encode(image.sha256))\n" }
        return s
    }

    public init(parsing bytes: [UInt8]) throws(BundleError) {
        var compatible: String?
        var version: String?
        var format: Int?
        var images: [Image] = []
        guard bytes.last == 0x0A else { throw .malformedManifest(line: 0, reason: "does not end with a newline") }
        var lineNumber = 0
        var start = 0
        for index in bytes.indices where bytes[index] == 0x0A {
            lineNumber += 1
            let line = bytes[start..<index]
            start = index + 1
            let words = line.split(separator: 0x20, omittingEmptySubsequences: false)
            func fail(_ reason: String) -> BundleError { .malformedManifest(line: lineNumber, reason: reason) }
            guard words.count >= 2, !words.contains(where: { $0.isEmpty }) else { throw fail("not 'key value' with single spaces") }
            for word in words {
                guard word.count <= BundleManifest.maximumWordBytes else { throw fail("a word longer than \(BundleManifest.maximumWordBytes) bytes") }
                // Printable ASCII only: the values end up in log lines and file names.
                guard word.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw fail("a byte that is not printable ASCII") }
            }
            let key = String(decoding: words[0], as: UTF8.self)
            let values = words.dropFirst().map { String(decoding: $0, as: UTF8.self) }
            switch key {
            case "format":
                guard format == nil, values.count == 1 else { throw fail("format twice or with more than one value") }
                guard values[0] == String(BundleManifest.manifestFormat) else { throw fail("format \(values[0]) is not supported") }
                format = BundleManifest.manifestFormat
            case "compatible":
                guard compatible == nil, values.count == 1 else { throw fail("compatible twice or with more than one value") }
                compatible = values[0]
            case "version":
                guard version == nil, values.count == 1 else { throw fail("version twice or with more than one value") }
                version = values[0]
            case "image":
                guard values.count == 3 else { throw fail("image needs NAME SIZE SHA256") }
                let name = values[0]
                guard name.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else {
                    throw fail("image name '\(name)' is not lower-case letters, digits and '-'")
                }
                guard !images.contains(where: { $0.name == name }) else { throw fail("image '\(name)' twice") }
                guard images.count < BundleManifest.maximumImages else { throw fail("more than \(BundleManifest.maximumImages) images") }
                guard let size = BundleManifest.decimal(values[1]), size > 0 else { throw fail("image size '\(values[1])' is not a positive decimal number") }
                guard let digest = Hex.decode(values[2]), digest.count == 32 else { throw fail("image SHA-256 is not 64 hex digits") }
                images.append(Image(name: name, size: size, sha256: digest))
            default:
                throw fail("unknown key '\(key)'")
            }
        }
        guard format != nil else { throw .malformedManifest(line: lineNumber, reason: "no format line") }
        guard let compatible else { throw .malformedManifest(line: lineNumber, reason: "no compatible line") }
        guard let version else { throw .malformedManifest(line: lineNumber, reason: "no version line") }
        guard !images.isEmpty else { throw .malformedManifest(line: lineNumber, reason: "no image") }
        self.init(compatible: compatible, version: version, images: images)
    }

    /// A decimal number without sign or leading zeros that fits 64 bits.
    static func decimal(_ text: String) -> UInt64? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count <= 19, digits.count == 1 || digits[0] != 0x30 else { return nil }
        var value: UInt64 = 0
        for d in digits {
            guard d >= 0x30, d <= 0x39 else { return nil }
            value = value * 10 + UInt64(d - 0x30)
        }
        return value
    }
}

/// Lower-case hexadecimal, as sha256sum writes it.
public enum Hex {
    public static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Hex digits of either case; nil on an odd count or another character.
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let high = nibble(chars[i]), let low = nibble(chars[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }
}
