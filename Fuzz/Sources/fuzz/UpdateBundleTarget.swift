import Update

/// The update bundle reader fed any bytes, cut into pieces as the first
/// byte says, with the repository's test key (image/keys/test-update-key.pub)
/// and a slot of 1 KiB. Whatever the input: the same events however it is
/// cut, no image byte before the signature is verified, nothing after the
/// end, and only the honest bundle (signed with the test key) completes.
enum UpdateBundleTarget {
    static let target = FuzzTarget(name: "update-bundle", run: run, seeds: seeds)

    static let testPublicKey = "a769db731d08cd6e4eb8f05ff78b604d18209cc47ec64ab8b5d59270d950923c"
    /// image/mkbundle --key image/keys/test-update-key.pem --compatible qemu-virt --version 1.0 root=(64 bytes).
    static let honest: [UInt8] = Hex.decode(
        "4e4e42554e444c450100000079000000666f726d617420310a636f6d70617469626c652071656d752d766972740a7665" +
        "7273696f6e20312e300a696d61676520726f6f7420363420346563376335376631386264366434346337356137643634" +
        "326536373538326330323930383035666339393430383538646436396563663366363138666639370a958e370f17e84d" +
        "0f245850ae760aa5e00c78236edfa18a5ed188c9ad5bbc46ca1327406a70bd4ca4bfdd66fdc799f3e701fb2db0f5757c" +
        "ee00358cd9586a920c686f6e65737420726f6f7420696d6167652c203634206279746573206f662069743a2030313233" +
        "34353637383961626364656630313233343536373839616263"
    )!
    static let slots = [BundleSlot(name: "root", capacity: 1024)]

    /// Feeds `bytes` in pieces of the sizes `cuts` cycles through; the events, data joined per image.
    static func read(_ bytes: [UInt8], cuts: [Int]) -> (events: [BundleEvent], images: [Int: [UInt8]]) {
        let key = try! Ed25519PublicKey(raw: Hex.decode(testPublicKey)!)
        let reader = BundleReader(publicKey: key, compatible: "qemu-virt", slots: slots)
        var events: [BundleEvent] = []
        var images: [Int: [UInt8]] = [:]
        var verified = false
        var index = 0
        var cut = 0
        func drain() {
            while let event = reader.poll() {
                invariant(!events.contains { if case .rejected = $0 { return true }; return $0 == .complete }, "an event after the end: \(event)")
                switch event {
                case .verified: verified = true
                case .data(let image, let offset, let piece):
                    invariant(verified, "image bytes before the signature was verified")
                    invariant(UInt64(images[image, default: []].count) == offset, "data out of order")
                    images[image, default: []] += piece
                    continue
                default: break
                }
                events.append(event)
            }
        }
        while index < bytes.count {
            let size = max(1, cuts.isEmpty ? bytes.count : cuts[cut % cuts.count])
            cut += 1
            reader.feed(bytes[index..<min(index + size, bytes.count)])
            drain()
            index += size
        }
        reader.finish()
        drain()
        return (events, images)
    }

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let cuts = input.chunk().map { Int($0) }
        let bundle = input.rest()
        let whole = read(bundle, cuts: [])
        let pieces = read(bundle, cuts: cuts)
        invariant(whole.events == pieces.events, "cutting the input changed the events: \(whole.events) vs \(pieces.events)")
        invariant(whole.images == pieces.images, "cutting the input changed the image bytes")
        guard let last = whole.events.last else {
            invariant(false, "no final event")
            return
        }
        if last == .complete {
            invariant(bundle == honest, "a bundle other than the honest one was accepted")
        } else {
            guard case .rejected = last else {
                invariant(false, "ended with \(last)")
                return
            }
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        var tampered = honest
        tampered[40] ^= 1
        return [
            ("honest", [3, 1, 17, 200] + honest),
            ("whole", [0] + honest),
            ("tampered-manifest", [1, 5] + tampered),
            ("truncated", [2, 16, 64] + Array(honest.dropLast(3))),
            ("trailing", [0] + honest + [0]),
        ]
    }
}
