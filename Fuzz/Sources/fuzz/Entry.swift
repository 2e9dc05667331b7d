import BluetoothCore
import Glibc

/// One fuzz target: what one input drives, and the seeds its corpus starts from.
struct FuzzTarget {
    let name: String
    let run: ([UInt8]) -> Void
    /// Named seed inputs, written to Fuzz/corpus/<name>/ by `scripts/fuzz --write-seeds`.
    let seeds: () -> [(String, [UInt8])]
}

let targets: [FuzzTarget] = [
    H4Target.target,
    ControllerBringUpTarget.target,
    ACLL2CAPTarget.target,
    LESignalingTarget.target,
    CreditBasedChannelTarget.target,
    GATTBearerTarget.target,
    GATTServiceBindingTarget.target,
    SMPTarget.target,
    AdvertisingTarget.target,
    ANCSNotificationSourceTarget.target,
    ANCSDataSourceTarget.target,
    AMSTarget.target,
    ConsoleTarget.target,
    ConfigTarget.target,
    BondStoreTarget.target,
    StateNamesTarget.target,
    InputTarget.target,
    PairingRoutineTarget.target,
    JSONTarget.target,
    KeyPacketTarget.target,
    NotifBridgeTarget.target,
    HPKETarget.target,
    GuidanceTarget.target,
    GhostDropTarget.target,
    TextLayoutTarget.target,
    UpdateBundleTarget.target,
]

nonisolated(unsafe) var selected: FuzzTarget?

private func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// Picks the target (FUZZ_TARGET) before libFuzzer starts, or writes the
/// seed corpora (FUZZ_WRITE_SEEDS=DIR) and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>,
                           _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    // Every layer logs what it drops; building the lines is part of what is
    // tested, printing them only slows the run down (FUZZ_LOG=1 shows them).
    Log.level = .trace
    if environment("FUZZ_LOG") == nil {
        Log.sink = { _, _, _ in }
    } else {
        // Unbuffered, so the lines before a crash are not lost with it.
        Log.sink = { level, subsystem, message in fputs("[\(level.name)] \(subsystem): \(message)\n", stderr) }
    }

    if let directory = environment("FUZZ_WRITE_SEEDS") {
        for target in targets { writeSeeds(target, into: directory) }
        exit(0)
    }
    guard let name = environment("FUZZ_TARGET"), let target = targets.first(where: { $0.name == name }) else {
        fputs("set FUZZ_TARGET to one of: \(targets.map { $0.name }.joined(separator: " "))\n", stderr)
        exit(2)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selected?.run(bytes)
    return 0
}

private func writeSeeds(_ target: FuzzTarget, into directory: String) {
    let folder = directory + "/" + target.name
    mkdir(directory, 0o755)
    mkdir(folder, 0o755)
    for (name, bytes) in target.seeds() {
        let path = folder + "/" + name
        guard let file = fopen(path, "wb") else {
            fputs("cannot write \(path)\n", stderr)
            exit(1)
        }
        if !bytes.isEmpty { _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) } }
        fclose(file)
    }
}
