/// A JSON number kept as the text it was written in: the parser has checked
/// the grammar, and each reader converts to what it needs (an exact integer,
/// or a Double for dates).
public struct JSONNumber: Equatable, CustomStringConvertible {
    /// ASCII text matching RFC 8259's `number` rule.
    public let text: String

    /// `text` must already match the grammar (the parser's job).
    init(validated text: String) { self.text = text }

    public var description: String { text }

    /// The value as an integer, when it is written as one (no fraction or
    /// exponent) and fits.
    public var int: Int? {
        var magnitude: Int = 0
        var negative = false
        for (index, byte) in text.utf8.enumerated() {
            if index == 0, byte == 0x2D { negative = true; continue }
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let digit = Int(byte - 0x30)
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            magnitude = sum
        }
        return magnitude
    }

    /// The value as a Double. The first 19 significant digits are kept
    /// exactly, then scaled by the power of ten: dates (seconds since 2001
    /// with microseconds, 16 digits) come out exact to the last bit or one off.
    public var double: Double {
        var mantissa: UInt64 = 0
        var digits = 0
        var dropped = 0          // integer digits beyond the 19 kept
        var fractionDigits = 0   // fraction digits kept
        var exponent = 0
        var negative = false
        var exponentNegative = false
        var part = 0  // 0 integer, 1 fraction, 2 exponent
        for byte in text.utf8 {
            switch byte {
            case 0x2D:
                if part == 2 { exponentNegative = true } else { negative = true }
            case 0x2B:
                break
            case 0x2E:
                part = 1
            case 0x45, 0x65:
                part = 2
            default:
                let digit = UInt64(byte &- 0x30)
                if part == 2 {
                    if exponent < 100_000 { exponent = exponent * 10 + Int(digit) }
                } else if digits < 19 {
                    if mantissa != 0 || digit != 0 { digits += 1 }
                    mantissa = mantissa * 10 + digit
                    if part == 1 { fractionDigits += 1 }
                } else if part == 0 {
                    dropped += 1
                }
            }
        }
        let scale = (exponentNegative ? -exponent : exponent) + dropped - fractionDigits
        var value = Double(mantissa)
        if mantissa != 0 {
            value = JSONNumber.scaled(value, byPowerOfTen: scale)
        }
        return negative ? -value : value
    }

    /// value × 10^power, dividing by an exact power of ten for negative
    /// powers (one correctly rounded division when |power| ≤ 22).
    static func scaled(_ value: Double, byPowerOfTen power: Int) -> Double {
        var result = value
        var remaining = power
        while remaining > 0 {
            let step = min(remaining, 22)
            result *= exactPowerOfTen(step)
            remaining -= step
            if result.isInfinite { return result }
        }
        while remaining < 0 {
            let step = min(-remaining, 22)
            result /= exactPowerOfTen(step)
            remaining += step
            if result == 0 { return result }
        }
        return result
    }

    /// 10^n for 0 ≤ n ≤ 22, all exactly representable as Doubles.
    private static func exactPowerOfTen(_ n: Int) -> Double {
        var p: Double = 1
        for _ in 0..<n { p *= 10 }
        return p
    }
}
