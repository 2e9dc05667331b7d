/// Sine and cosine without libm, so the renderer builds for bare-metal
/// Embedded Swift. Accurate to about 1e-7, plenty for flattening arcs.
public enum Trig {
    public static let pi: Float = 3.14159265358979

    public static func sin(_ angle: Float) -> Float {
        // Reduce to [-pi, pi], then to [-pi/2, pi/2] with sin(pi - x) = sin(x).
        let twoPi: Float = 2 * pi
        var x = angle - twoPi * (angle / twoPi).rounded()
        if x > pi / 2 { x = pi - x } else if x < -pi / 2 { x = -pi - x }
        let x2 = x * x
        // Taylor series to x^13: error below 1e-9 on [-pi/2, pi/2].
        var term = x
        var sum = x
        var n: Float = 1
        for _ in 0..<6 {
            term = -term * x2 / ((n + 1) * (n + 2))
            sum += term
            n += 2
        }
        return sum
    }

    public static func cos(_ angle: Float) -> Float { sin(angle + pi / 2) }
}
