import CLinux

/// The command line, read from /proc/self/cmdline: the firmware's Embedded
/// Swift runtime has no CommandLine, and this works the same in both builds.
public enum ProcessArguments {
    public static func read() -> [String] {
        let fd = nn_open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return [] }
        defer { FileDescriptor.close(fd) }
        var bytes: [UInt8] = []
        while let chunk = try? FileDescriptor.read(fd, max: 4096), !chunk.isEmpty {
            bytes.append(contentsOf: chunk)
        }
        return bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast(bytes.last == 0 ? 1 : 0)
            .map { String(decoding: $0, as: UTF8.self) }
    }
}
