import CCrypto

/// Overwrites secret bytes in place with zeros, in a way the optimiser may not
/// remove (OPENSSL_cleanse), before the memory is given back.
@inline(__always)
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
    }
}

@inline(__always)
func wipe<T>(_ pointer: UnsafeMutablePointer<T>, count: Int) {
    OPENSSL_cleanse(UnsafeMutableRawPointer(pointer), count * MemoryLayout<T>.stride)
}
