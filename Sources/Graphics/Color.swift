/// An opaque-or-translucent colour. Canvas pixels are XRGB8888 (the X byte is
/// kept at 0xFF so the same words are valid ARGB for PNG writers); a Color
/// carries a real alpha that is blended when drawing.
public struct Color: Equatable, Hashable {
    public var argb: UInt32

    public init(argb: UInt32) { self.argb = argb }

    /// `Color(rgb: 0x3D9BFF)`: opaque.
    public init(rgb: UInt32) { self.argb = 0xFF00_0000 | (rgb & 0x00FF_FFFF) }

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        argb = UInt32(alpha) << 24 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
    }

    public var alpha: UInt8 { UInt8(truncatingIfNeeded: argb >> 24) }
    public var red: UInt8 { UInt8(truncatingIfNeeded: argb >> 16) }
    public var green: UInt8 { UInt8(truncatingIfNeeded: argb >> 8) }
    public var blue: UInt8 { UInt8(truncatingIfNeeded: argb) }
    public var isOpaque: Bool { alpha == 255 }

    /// The canvas word for this colour drawn opaquely.
    public var pixel: UInt32 { argb | 0xFF00_0000 }

    public func withAlpha(_ a: UInt8) -> Color { Color(argb: (argb & 0x00FF_FFFF) | UInt32(a) << 24) }

    /// This colour mixed over `background` (alpha applied), as an opaque colour.
    public func over(_ background: Color) -> Color {
        Color(argb: blendPixel(background.pixel, pixel, UInt32(alpha)))
    }

    public static let black = Color(rgb: 0x000000)
    public static let white = Color(rgb: 0xFFFFFF)
}

/// `src` over `dst` with coverage `a` in 0...255 (both XRGB; result opaque).
/// Two channels at a time in one 32-bit word; exact to within one step.
@inline(__always)
public func blendPixel(_ dst: UInt32, _ src: UInt32, _ a: UInt32) -> UInt32 {
    let inv = 255 &- a
    var rb = (src & 0x00FF_00FF) &* a &+ (dst & 0x00FF_00FF) &* inv
    rb = ((rb &+ 0x0080_0080 &+ ((rb >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
    var g = (src & 0x0000_FF00) &* a &+ (dst & 0x0000_FF00) &* inv
    g = ((g &+ 0x0000_8000 &+ ((g >> 8) & 0x0000_FF00)) >> 8) & 0x0000_FF00
    return 0xFF00_0000 | rb | g
}
