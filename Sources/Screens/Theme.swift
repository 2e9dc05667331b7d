import Graphics
import ScreenValues

/// The colours of one theme. Night is dark with bright type (no glare
/// after dusk); day is light with near-black type for sunlight.
struct Theme {
    var background: Color
    var surface: Color
    var raised: Color
    var text: Color
    var secondary: Color
    var accent: Color
    var onAccent: Color
    var good: Color
    var warn: Color
    var danger: Color
    var track: Color

    static let night = Theme(
        background: Color(rgb: 0x0A0D12), surface: Color(rgb: 0x171C24), raised: Color(rgb: 0x262E3A),
        text: Color(rgb: 0xF5F7FA), secondary: Color(rgb: 0x9CA7B7), accent: Color(rgb: 0x3D8BFF),
        onAccent: Color(rgb: 0xFFFFFF), good: Color(rgb: 0x30D158), warn: Color(rgb: 0xFFB020),
        danger: Color(rgb: 0xFF5A4F), track: Color(rgb: 0x2E3644))

    static let day = Theme(
        background: Color(rgb: 0xE6EAF0), surface: Color(rgb: 0xFFFFFF), raised: Color(rgb: 0xD9E0E9),
        text: Color(rgb: 0x0B0F14), secondary: Color(rgb: 0x4B5563), accent: Color(rgb: 0x0A62D8),
        onAccent: Color(rgb: 0xFFFFFF), good: Color(rgb: 0x16863C), warn: Color(rgb: 0xA35F00),
        danger: Color(rgb: 0xD12A1F), track: Color(rgb: 0xD3DAE3))

    static func of(_ mode: ThemeMode) -> Theme { mode == .day ? day : night }
}
