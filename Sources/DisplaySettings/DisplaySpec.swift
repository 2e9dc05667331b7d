/// Where frames go, from `--display` or the configuration file
/// (docs/PROTOCOL.md §6): a plain value, opened by the Display module.
public enum DisplaySpec: Equatable, CustomStringConvertible {
    /// DRM/KMS card.
    case drm(device: String)
    /// Linux framebuffer device.
    case fbdev(device: String)
    /// `DIR/latest.png` plus numbered frames.
    case png(directory: String)
    case none

    public static let defaultCard = "/dev/dri/card0"
    public static let defaultFramebuffer = "/dev/fb0"

    /// Parses `drm[:/dev/dri/cardN]`, `fbdev[:/dev/fbN]`, `png:DIR`, `none`.
    public static func parse(_ text: String) throws(DisplaySpecError) -> DisplaySpec {
        let usage = "display spec must be drm[:/dev/dri/cardN], fbdev[:/dev/fbN], png:DIR or none"
        let kind: Substring, rest: Substring?
        if let colon = text.firstIndex(of: ":") {
            kind = text[..<colon]
            rest = text[text.index(after: colon)...]
        } else {
            kind = text[...]
            rest = nil
        }
        if let r = rest, r.isEmpty {
            throw .badSpec("'\(text)': nothing after the colon; \(usage)")
        }
        switch kind {
        case "drm": return .drm(device: rest.map(String.init) ?? defaultCard)
        case "fbdev": return .fbdev(device: rest.map(String.init) ?? defaultFramebuffer)
        case "png":
            guard let dir = rest else { throw .badSpec("'\(text)': png needs a directory (png:DIR)") }
            return .png(directory: String(dir))
        case "none":
            guard rest == nil else { throw .badSpec("'\(text)': none takes no argument") }
            return .none
        default:
            throw .badSpec("'\(text)': \(usage)")
        }
    }

    public var description: String {
        switch self {
        case .drm(let d): return "drm:\(d)"
        case .fbdev(let d): return "fbdev:\(d)"
        case .png(let d): return "png:\(d)"
        case .none: return "none"
        }
    }
}

/// Why a `--display` spec was not understood, worded for the usage message.
public enum DisplaySpecError: Error, Equatable, CustomStringConvertible {
    case badSpec(String)

    public var description: String {
        switch self {
        case .badSpec(let s): return s
        }
    }
}
