extension Array where Element == UInt8 {
    /// The bytes of a PDU handed down, each layer putting its header in
    /// front: an L2CAP basic header, then an ACL packet's (each two
    /// little-endian u16). With room in the array's own storage (the ATT
    /// bearer's PDUs are made with it, `lowerHeadersRoom`) the bytes move
    /// along in place, one memmove and no allocation; without room or
    /// when the storage is shared, the array is copied once, as writing
    /// the header and the bytes into a new array would.
    @inlinable public mutating func putInFront(_ first: UInt16, _ second: UInt16) {
        let count = self.count
        reserveCapacity(count + 4)
        append(0)
        append(0)
        append(0)
        append(0)
        withUnsafeMutableBytes { bytes in
            let base = bytes.baseAddress.unsafelyUnwrapped
            // The regions overlap: copyMemory is a memmove.
            (base + 4).copyMemory(from: base, byteCount: count)
            bytes[0] = UInt8(truncatingIfNeeded: first)
            bytes[1] = UInt8(truncatingIfNeeded: first >> 8)
            bytes[2] = UInt8(truncatingIfNeeded: second)
            bytes[3] = UInt8(truncatingIfNeeded: second >> 8)
        }
    }

    /// Room for the headers the lower layers put in front of an ATT PDU
    /// on its way out (L2CAP's basic header and the ACL packet's, 4 bytes
    /// each), to reserve when the PDU is made (`putInFront`).
    public static let lowerHeadersRoom = 8
}
