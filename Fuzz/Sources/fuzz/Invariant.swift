import Glibc

/// Stops the run when a property every input must keep is broken. libFuzzer
/// reports the abort as a crash and saves the input.
func invariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
               file: StaticString = #fileID, line: UInt = #line) {
    guard !condition() else { return }
    fputs("invariant broken at \(file):\(line): \(message())\n", stderr)
    abort()
}

/// Little-endian u16 at `index` of a byte array the caller has checked.
func le16(_ bytes: [UInt8], _ index: Int) -> Int {
    Int(bytes[index]) | Int(bytes[index + 1]) << 8
}
