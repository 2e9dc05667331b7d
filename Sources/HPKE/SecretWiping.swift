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

/// Zeroes the storage `bytes` refers to, for every copy that shares it:
/// a secret handed around by value (a seed parsed from a packet and kept in
/// the key ring, an exporter secret, a per-envelope key) is wiped once
/// where it is dropped for good, whoever else still held a reference. Only
/// for secrets no holder uses any more, never for constant arrays.
public func wipeSecret(_ bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { buffer in
        if let base = buffer.baseAddress, buffer.count > 0 { OPENSSL_cleanse(UnsafeMutableRawPointer(mutating: base), buffer.count) }
    }
}
