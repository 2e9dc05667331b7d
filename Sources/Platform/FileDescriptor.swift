import CLinux

/// Small wrappers around read/write/close that turn errno into SystemError.
public enum FileDescriptor {
    public static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = nn_fcntl_int(fd, F_GETFL, 0)
        guard flags >= 0, nn_fcntl_int(fd, F_SETFL, flags | O_NONBLOCK) >= 0 else {
            throw SystemError("fcntl(O_NONBLOCK)")
        }
    }

    /// Reads what is available, up to `max` bytes. An empty result means end
    /// of stream; nil means nothing to read right now.
    public static func read(_ fd: Int32, max: Int = 4096) throws(SystemError) -> [UInt8]? {
        while true {
            // Uninitialised storage: zeroing `max` bytes per read cost more
            // than the read itself on the HCI path (ten reads per notification).
            var n = 0
            let buffer = [UInt8](unsafeUninitializedCapacity: max) { storage, count in
                n = CLinux.read(fd, storage.baseAddress, max)
                count = n > 0 ? n : 0
            }
            if n >= 0 { return buffer }
            let error = SystemError("read")
            if error.isInterrupted { continue }
            if error.isWouldBlock { return nil }
            throw error
        }
    }

    /// Reads what is available into `buffer`, up to its size, and returns
    /// how many bytes it got: for a reader that keeps one buffer for all
    /// its reads. 0 means end of stream; nil means nothing to read right now.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        while true {
            let n = CLinux.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            let error = SystemError("read")
            if error.isInterrupted { continue }
            if error.isWouldBlock { return nil }
            throw error
        }
    }

    /// Writes as much as the descriptor takes now; returns the count written.
    public static func write(_ fd: Int32, _ bytes: ArraySlice<UInt8>) throws(SystemError) -> Int {
        while true {
            let n = bytes.withUnsafeBytes { CLinux.write(fd, $0.baseAddress, $0.count) }
            if n >= 0 { return n }
            let error = SystemError("write")
            if error.isInterrupted { continue }
            if error.isWouldBlock { return 0 }
            throw error
        }
    }

    /// Makes the regular file behind `fd` readable and writable by its
    /// owner alone (0600). open(2) applies its mode only to a file it
    /// creates: an older file at that path keeps the mode it had. Devices
    /// and pipes are left alone. False when the mode could not be set.
    public static func restrictToOwner(_ fd: Int32) -> Bool {
        var status = stat()
        guard fstat(fd, &status) == 0, UInt32(status.st_mode) & 0o170000 == 0o100000,
              UInt32(status.st_mode) & 0o7777 != ownerOnlyMode else { return true }
        return fchmod(fd, ownerOnlyMode) == 0
    }

    /// Files that hold what only the head unit's owner may read: keys,
    /// notification text.
    public static let ownerOnlyMode: UInt32 = 0o600

    public static func close(_ fd: Int32) {
        if fd >= 0 { _ = CLinux.close(fd) }
    }
}
