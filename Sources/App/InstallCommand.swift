import BluetoothCore
import CLinux
import Platform
import Update

/// `headunit install BUNDLE`: streams a signed update bundle into the
/// inactive slot's partitions (docs/UPDATES.md). The image's installer
/// script (/usr/libexec/headunit/update) picks the slots, runs this at idle
/// I/O priority, and arms the trial boot only when it exits with 0.
///
/// Nothing is written before the signature over the manifest has been
/// verified, and only to the devices named for the images; each image is
/// flushed to the device (fsync) once its SHA-256 matched.
enum InstallCommand {
    static let defaultKey = "/etc/headunit/update-key.pub"
    static let chunkSize = 64 * 1024

    static func run(_ args: Arguments) throws(Arguments.UsageError) -> Int32 {
        guard args.positional.count == 1 else { throw Arguments.UsageError(description: "install BUNDLE --compatible BOARD --root DEVICE [--boot DEVICE] [--key FILE]") }
        guard let compatible = args.options["compatible"] else { throw Arguments.UsageError(description: "install: --compatible BOARD is needed") }
        var devices: [(name: String, path: String)] = []
        for name in ["root", "boot"] {
            if let path = args.options[name] { devices.append((name, path)) }
        }
        guard !devices.isEmpty else { throw Arguments.UsageError(description: "install: --root DEVICE (and --boot DEVICE) are needed") }
        let keyPath = args.options["key"] ?? defaultKey
        let bundlePath = args.positional[0]
        // On stderr, which is not buffered: the installer script relays the
        // progress to the console as it comes.
        func say(_ line: String) { StandardErrorLog.line("install: \(line)") }

        let keyFile: [UInt8]
        do { keyFile = try ReadFile.prefix(keyPath, limit: 256) } catch {
            say("refused: no update key: \(error)")
            return 1
        }
        let key: Ed25519PublicKey
        do { key = try Ed25519PublicKey(hexFile: keyFile) } catch {
            say("refused: \(keyPath): \(error.description)")
            return 1
        }
        let input = nn_open(bundlePath, O_RDONLY | O_CLOEXEC, 0)
        guard input >= 0 else {
            say("cannot open \(bundlePath): \(SystemError("open"))")
            return 1
        }
        defer { FileDescriptor.close(input) }
        let bundleSize = UInt64(max(0, lseek(input, 0, SEEK_END)))
        _ = lseek(input, 0, SEEK_SET)

        // The slots, opened for writing; their sizes are the images' caps.
        var outputs: [Int32] = []
        var slots: [BundleSlot] = []
        defer { for fd in outputs { FileDescriptor.close(fd) } }
        for device in devices {
            let fd = nn_open(device.path, O_WRONLY | O_CLOEXEC, 0)
            guard fd >= 0 else {
                say("cannot open the \(device.name) slot \(device.path): \(SystemError("open"))")
                return 1
            }
            outputs.append(fd)
            slots.append(BundleSlot(name: device.name, capacity: UInt64(max(0, lseek(fd, 0, SEEK_END)))))
        }

        let reader = BundleReader(publicKey: key, compatible: compatible, slots: slots)
        var manifest: BundleManifest?
        var lastTenth: UInt64 = 0
        while !reader.isFinished {
            let chunk: [UInt8]
            do {
                chunk = try FileDescriptor.read(input, max: chunkSize) ?? []
            } catch {
                say("cannot read \(bundlePath): \(error)")
                return 1
            }
            if chunk.isEmpty { reader.finish() } else { reader.feed(chunk) }
            while let event = reader.poll() {
                switch event {
                case .verified(let m):
                    manifest = m
                    say("signature verified: version \(m.version) for \(m.compatible), "
                        + m.images.map { "\($0.name) \($0.size) bytes" }.joined(separator: ", "))
                case .data(let image, let offset, let bytes):
                    let name = manifest!.images[image].name
                    let fd = outputs[slots.firstIndex { $0.name == name }!]
                    guard write(fd, bytes, at: offset) else {
                        say("cannot write the \(name) slot: \(SystemError("pwrite"))")
                        return 1
                    }
                case .imageVerified(let image):
                    let name = manifest!.images[image].name
                    guard fsync(outputs[slots.firstIndex { $0.name == name }!]) == 0 else {
                        say("cannot flush the \(name) slot: \(SystemError("fsync"))")
                        return 1
                    }
                    say("\(name) image written and its SHA-256 verified")
                case .complete:
                    say("complete: version \(manifest!.version)")
                    StandardErrorLog.line("version \(manifest!.version)")
                    return 0
                case .rejected(let error):
                    say("refused: \(error.description)")
                    return 1
                }
            }
            if bundleSize > 0 {
                let tenth = reader.bytesRead * 10 / bundleSize
                if tenth > lastTenth, tenth < 10 {
                    lastTenth = tenth
                    say("\(tenth * 10)%")
                }
            }
        }
        return 1
    }

    private static func write(_ fd: Int32, _ bytes: ArraySlice<UInt8>, at offset: UInt64) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done)) }
            if n < 0 {
                if nn_errno() == EINTR { continue }
                return false
            }
            done += n
        }
        return true
    }
}
