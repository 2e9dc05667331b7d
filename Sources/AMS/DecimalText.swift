/// AMS sends numbers as decimal text ("1", "0.5", "213.47"). The firmware
/// keeps them as integers scaled by 1000 (milliseconds, thousandths): no
/// floating point parsing is needed, and Embedded Swift has none built in.
enum DecimalText {
    /// "12.3456" → 12346 (rounded to the nearest thousandth); "-2" → -2000.
    /// Nil for anything that is not a plain decimal number.
    static func thousandths(_ text: String) -> Int64? {
        var negative = false
        var whole: Int64 = 0
        var fraction: Int64 = 0
        var fractionDigits = 0
        var roundUp = false
        var sawDigit = false
        var sawPoint = false
        var first = true
        for byte in text.utf8 {
            defer { first = false }
            switch byte {
            case UInt8(ascii: "-") where first: negative = true
            case UInt8(ascii: "+") where first: break
            case UInt8(ascii: "."):
                guard !sawPoint else { return nil }
                sawPoint = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                sawDigit = true
                let digit = Int64(byte - UInt8(ascii: "0"))
                if !sawPoint {
                    guard whole < 1_000_000_000_000 else { return nil } // no overflow
                    whole = whole * 10 + digit
                } else if fractionDigits < 3 {
                    fraction = fraction * 10 + digit
                    fractionDigits += 1
                } else if fractionDigits == 3 {
                    roundUp = digit >= 5
                    fractionDigits += 1
                }
            default:
                return nil
            }
        }
        guard sawDigit else { return nil }
        while fractionDigits < 3 {
            fraction *= 10
            fractionDigits += 1
        }
        let value = whole * 1000 + fraction + (roundUp ? 1 : 0)
        return negative ? -value : value
    }
}
