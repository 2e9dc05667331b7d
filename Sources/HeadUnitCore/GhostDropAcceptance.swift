import GhostDrop
import Update

/// What the head unit takes over GhostDrop (docs/GHOSTDROP.md, "What the
/// head unit accepts"): a signed update bundle (`*.hubundle`) and a
/// `headunit.conf`, each under a size cap and only if the state partition
/// has room for it; anything else is refused at `incoming` with a reason the
/// sender shows. A bundle's header is checked again as soon as its first
/// 16 bytes arrived, and once more by the installer before a slot is written.
public enum GhostDropFileKind: Equatable {
    case updateBundle
    case configuration

    /// The bundle suffix image/mkbundle and image/build write.
    public static let bundleSuffix = ".hubundle"
    public static let configurationName = "headunit.conf"
    /// A bundle holds at most the root slot's 14 MiB plus its header,
    /// manifest and signature; 32 MiB leaves room for a Pi bundle's boot
    /// image later without letting a sender fill the state partition.
    public static let maxBundleBytes: Int64 = 32 * 1024 * 1024
    /// A configuration is a page of text (board/headunit.conf.example is 5 KiB).
    public static let maxConfigurationBytes: Int64 = 64 * 1024
    /// Left free on the state partition after the file: the bonds, the
    /// event log and the resume state must still be writable.
    public static let reserveBytes: Int64 = 1024 * 1024

    public static let refusedKind = "only update bundles and headunit.conf are accepted"

    /// The kind a (safe) file name says, nil for anything else.
    public init?(filename: String) {
        let name = GhostDropFileOp.safeName(filename)
        if name == GhostDropFileKind.configurationName {
            self = .configuration
        } else if name.count > GhostDropFileKind.bundleSuffix.count,
                  name.lowercased().hasSuffix(GhostDropFileKind.bundleSuffix) {
            self = .updateBundle
        } else {
            return nil
        }
    }

    public var maxBytes: Int64 {
        switch self {
        case .updateBundle: return GhostDropFileKind.maxBundleBytes
        case .configuration: return GhostDropFileKind.maxConfigurationBytes
        }
    }

    /// The kind of an offered file, or why it is refused. `freeBytes`: what
    /// the state partition has free (nil: not known, not checked); the
    /// bytes from `startOffset` on are still to be written.
    public static func decide(_ metadata: GhostFileMetadata, startOffset: Int64,
                              freeBytes: Int64?) -> Result<GhostDropFileKind, GhostDropRefusal> {
        guard let kind = GhostDropFileKind(filename: metadata.filename) else {
            return .failure(GhostDropRefusal(GhostDropFileKind.refusedKind))
        }
        guard metadata.size <= kind.maxBytes else {
            let what = kind == .updateBundle ? "an update bundle" : "a headunit.conf"
            return .failure(GhostDropRefusal("\(metadata.filename) is too large for \(what) (\(metadata.size) bytes, at most \(kind.maxBytes))"))
        }
        if let freeBytes {
            let needed = metadata.size - startOffset + reserveBytes
            guard needed <= freeBytes else {
                return .failure(GhostDropRefusal("Not enough free space on the head unit for \(metadata.filename) "
                                                 + "(\(metadata.size - startOffset) bytes to write, \(max(freeBytes - reserveBytes, 0)) free)"))
            }
        }
        return .success(kind)
    }

    /// A bundle's first 16 bytes: nil if they are a bundle header this
    /// head unit reads, else why not (the signature is the installer's).
    public static func bundleHeaderRefusal(_ first: [UInt8]) -> GhostDropRefusal? {
        do throws(BundleError) {
            _ = try BundleHeader(first[...])
            return nil
        } catch {
            return GhostDropRefusal("Not an update bundle: \(error.description)")
        }
    }
}

/// Why a file is refused: the reason GhostDrop's cancel carries to the phone.
public struct GhostDropRefusal: Error, Equatable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}
