import CLinux

/// Reads the beginning of a file: up to `limit` bytes. For files a person
/// edits (the configuration), which the reader must cope with at any size.
public enum ReadFile {
    public static func prefix(_ path: String, limit: Int) throws(SystemError) -> [UInt8] {
        let fd = nn_open(path, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        defer { FileDescriptor.close(fd) }
        var bytes: [UInt8] = []
        while bytes.count < limit {
            let chunk: [UInt8]?
            do { chunk = try FileDescriptor.read(fd, max: min(4096, limit - bytes.count)) } catch {
                throw SystemError("read \(path)", code: error.code)
            }
            guard let c = chunk, !c.isEmpty else { break }
            bytes.append(contentsOf: c)
        }
        return bytes
    }
}
