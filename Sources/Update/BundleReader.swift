/// A slot this device can install an image into, and how many bytes it holds.
public struct BundleSlot: Equatable {
    public let name: String
    public let capacity: UInt64

    public init(name: String, capacity: UInt64) {
        self.name = name
        self.capacity = capacity
    }
}

/// What the reader found, in order. `data` comes only after `verified`: no
/// byte of an image is handed out before the signature over the manifest
/// (which names every image's size and SHA-256) has been checked.
public enum BundleEvent: Equatable {
    /// Header and manifest are genuine, for this board, and every image fits its slot.
    case verified(BundleManifest)
    /// Bytes of image `image` (index into the manifest's images) at `offset` within it.
    case data(image: Int, offset: UInt64, bytes: ArraySlice<UInt8>)
    /// Image `image` is whole and has the SHA-256 the manifest names.
    case imageVerified(image: Int)
    /// Every image verified and the input ended right after the last one.
    case complete
    /// Refused; nothing after this. Whatever was written must not be used.
    case rejected(BundleError)
}

/// Reads an update bundle as it streams in (sans-I/O): fed chunks of any
/// size (`feed`), told when the input ends (`finish`), polled for events
/// (`poll`). It never holds more than the header, a capped manifest and
/// the signature; image bytes pass through, hashed on the way.
public final class BundleReader {
    private enum Stage {
        case header
        case manifest(BundleHeader)
        case image(index: Int, offset: UInt64)
        case end
        case done
    }

    private let publicKey: Ed25519PublicKey
    private let compatible: String
    private let slots: [BundleSlot]
    private var stage = Stage.header
    private var buffered: [UInt8] = []
    private var manifest: BundleManifest?
    private var hash = SHA256Stream()
    private var events: [BundleEvent] = []
    private var nextEvent = 0

    /// Bytes taken so far (for progress).
    public private(set) var bytesRead: UInt64 = 0

    /// `compatible`: this board's name; `slots`: where images may go and their sizes.
    public init(publicKey: Ed25519PublicKey, compatible: String, slots: [BundleSlot]) {
        self.publicKey = publicKey
        self.compatible = compatible
        self.slots = slots
    }

    /// True once the bundle was accepted whole or refused.
    public var isFinished: Bool {
        if case .done = stage { return true }
        return false
    }

    public func poll() -> BundleEvent? {
        guard nextEvent < events.count else {
            events.removeAll(keepingCapacity: true)
            nextEvent = 0
            return nil
        }
        defer { nextEvent += 1 }
        return events[nextEvent]
    }

    public func feed(_ bytes: [UInt8]) {
        feed(bytes[...])
    }

    public func feed(_ input: ArraySlice<UInt8>) {
        var rest = input
        while !rest.isEmpty {
            switch stage {
            case .done:
                return
            case .end:
                reject(.trailingBytes)
                return
            case .header:
                rest = take(BundleHeader.size, from: rest)
                guard buffered.count == BundleHeader.size else { return }
                do throws(BundleError) {
                    stage = .manifest(try BundleHeader(buffered[...]))
                } catch {
                    reject(error)
                    return
                }
            case .manifest(let header):
                let signed = BundleHeader.size + header.manifestLength
                rest = take(signed + BundleHeader.signatureSize, from: rest)
                guard buffered.count == signed + BundleHeader.signatureSize else { return }
                do throws(BundleError) {
                    try acceptManifest(signed: Array(buffered[0..<signed]), signature: Array(buffered[signed...]))
                } catch {
                    reject(error)
                    return
                }
            case .image(let index, let offset):
                let image = manifest!.images[index]
                let count = Int(min(UInt64(rest.count), image.size - offset))
                let piece = rest.prefix(count)
                rest = rest.dropFirst(count)
                bytesRead += UInt64(count)
                hash.update(piece)
                events.append(.data(image: index, offset: offset, bytes: piece))
                if offset + UInt64(count) == image.size {
                    finishImage(index)
                } else {
                    stage = .image(index: index, offset: offset + UInt64(count))
                }
            }
        }
    }

    /// The input ended: accepted if the last image was complete, else truncated.
    public func finish() {
        switch stage {
        case .done: return
        case .end:
            stage = .done
            events.append(.complete)
        default:
            reject(.truncated)
        }
    }

    /// Appends up to `total - buffered.count` bytes of `bytes` to the buffer; returns the rest.
    private func take(_ total: Int, from bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let count = min(total - buffered.count, bytes.count)
        buffered.append(contentsOf: bytes.prefix(count))
        bytesRead += UInt64(count)
        return bytes.dropFirst(count)
    }

    private func acceptManifest(signed: [UInt8], signature: [UInt8]) throws(BundleError) {
        // The signature first: nothing of an unsigned manifest is believed,
        // not even what it says it is for.
        guard publicKey.verify(signature: signature, message: signed) else { throw .badSignature }
        let parsed = try BundleManifest(parsing: Array(signed[BundleHeader.size...]))
        guard parsed.compatible == compatible else { throw .incompatible(parsed.compatible) }
        for image in parsed.images {
            guard let slot = slots.first(where: { $0.name == image.name }) else { throw .noSlot(image.name) }
            guard image.size <= slot.capacity else {
                throw .imageTooLarge(name: image.name, size: image.size, capacity: slot.capacity)
            }
        }
        manifest = parsed
        buffered = []
        stage = .image(index: 0, offset: 0)
        events.append(.verified(parsed))
    }

    private func finishImage(_ index: Int) {
        let image = manifest!.images[index]
        guard hash.finish() == image.sha256 else {
            reject(.hashMismatch(image.name))
            return
        }
        events.append(.imageVerified(image: index))
        if index + 1 < manifest!.images.count {
            hash = SHA256Stream()
            stage = .image(index: index + 1, offset: 0)
        } else {
            stage = .end
        }
    }

    private func reject(_ error: BundleError) {
        stage = .done
        buffered = []
        events.append(.rejected(error))
    }
}
