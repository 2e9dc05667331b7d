import BluetoothCore

/// An evdev key or button code (linux/input-event-codes.h), named as the
/// kernel names it (`KEY_ENTER`) so configuration files can use the names
/// `evtest` prints.
public struct KeyCode: Hashable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let escape = KeyCode(1)
    public static let enter = KeyCode(28)
    public static let space = KeyCode(57)
    public static let keypadEnter = KeyCode(96)
    public static let pause = KeyCode(119)
    public static let volumeDown = KeyCode(114)
    public static let volumeUp = KeyCode(115)
    public static let nextSong = KeyCode(163)
    public static let playPause = KeyCode(164)
    public static let previousSong = KeyCode(165)
    public static let playCD = KeyCode(200)
    public static let pauseCD = KeyCode(201)
    public static let ok = KeyCode(0x160)
    public static let select = KeyCode(0x161)
    /// Buttons share the key code space.
    public static let buttonLeft = KeyCode(0x110)
    /// Finger on a touch surface.
    public static let buttonTouch = KeyCode(0x14A)
    public static let buttonToolFinger = KeyCode(0x145)

    /// Highest code a device can report (KEY_MAX).
    public static let maximum: UInt16 = 0x2FF

    /// `KEY_ENTER`, `BTN_LEFT`, or `KEY_0x1a2` for codes without a name here.
    public var name: String {
        if let n = KeyCode.nameByCode[rawValue] { return n }
        return "KEY_0x" + hex(rawValue, digits: 3)
    }

    public var description: String { name }

    /// From a kernel name (case-insensitive, the `KEY_` prefix optional for
    /// keys) or a decimal or 0x-hexadecimal code up to KEY_MAX.
    public init?(name: String) {
        let upper = name.uppercased()
        if let code = KeyCode.codeByName[upper] ?? KeyCode.codeByName["KEY_" + upper] {
            self.init(code)
            return
        }
        var digits = Substring(upper)
        var radix = 10
        if digits.hasPrefix("KEY_0X") { digits = digits.dropFirst(6); radix = 16 }
        else if digits.hasPrefix("0X") { digits = digits.dropFirst(2); radix = 16 }
        guard !digits.isEmpty, let code = UInt16(digits, radix: radix), code <= KeyCode.maximum else { return nil }
        self.init(code)
    }

    // MARK: - The name table

    private static let table: [(String, UInt16)] = {
        var t: [(String, UInt16)] = [
            ("KEY_ESC", 1), ("KEY_MINUS", 12), ("KEY_EQUAL", 13), ("KEY_BACKSPACE", 14), ("KEY_TAB", 15),
            ("KEY_ENTER", 28), ("KEY_LEFTCTRL", 29), ("KEY_LEFTSHIFT", 42), ("KEY_RIGHTSHIFT", 54),
            ("KEY_LEFTALT", 56), ("KEY_SPACE", 57), ("KEY_CAPSLOCK", 58),
            ("KEY_F11", 87), ("KEY_F12", 88), ("KEY_KPENTER", 96), ("KEY_RIGHTCTRL", 97), ("KEY_RIGHTALT", 100),
            ("KEY_HOME", 102), ("KEY_UP", 103), ("KEY_PAGEUP", 104), ("KEY_LEFT", 105), ("KEY_RIGHT", 106),
            ("KEY_END", 107), ("KEY_DOWN", 108), ("KEY_PAGEDOWN", 109), ("KEY_INSERT", 110), ("KEY_DELETE", 111),
            ("KEY_MUTE", 113), ("KEY_VOLUMEDOWN", 114), ("KEY_VOLUMEUP", 115), ("KEY_POWER", 116),
            ("KEY_PAUSE", 119), ("KEY_STOP", 128), ("KEY_MENU", 139), ("KEY_BACK", 158), ("KEY_FORWARD", 159),
            ("KEY_NEXTSONG", 163), ("KEY_PLAYPAUSE", 164), ("KEY_PREVIOUSSONG", 165), ("KEY_STOPCD", 166),
            ("KEY_PLAYCD", 200), ("KEY_PAUSECD", 201), ("KEY_PLAY", 207), ("KEY_FASTFORWARD", 208),
            ("KEY_SEARCH", 217), ("KEY_MEDIA", 226),
            ("BTN_0", 0x100), ("BTN_1", 0x101), ("BTN_2", 0x102), ("BTN_3", 0x103),
            ("BTN_LEFT", 0x110), ("BTN_RIGHT", 0x111), ("BTN_MIDDLE", 0x112),
            ("BTN_SOUTH", 0x130), ("BTN_EAST", 0x131), ("BTN_NORTH", 0x133), ("BTN_WEST", 0x134),
            ("BTN_START", 0x13B), ("BTN_SELECT", 0x13A),
            ("BTN_TOOL_FINGER", 0x145), ("BTN_TOUCH", 0x14A),
            ("KEY_OK", 0x160), ("KEY_SELECT", 0x161), ("KEY_INFO", 0x166), ("KEY_EXIT", 0xAE),
            ("KEY_RED", 0x18E), ("KEY_GREEN", 0x18F), ("KEY_YELLOW", 0x190), ("KEY_BLUE", 0x191),
            ("KEY_NEXT", 0x197), ("KEY_PREVIOUS", 0x19C),
        ]
        // Digits: KEY_1..KEY_9 are 2..10, KEY_0 is 11.
        for d in 1...9 { t.append(("KEY_\(d)", UInt16(d + 1))) }
        t.append(("KEY_0", 11))
        // Letters follow the rows of a US keyboard.
        for (row, first) in [("QWERTYUIOP", 16), ("ASDFGHJKL", 30), ("ZXCVBNM", 44)] as [(String, Int)] {
            for (i, letter) in row.enumerated() { t.append(("KEY_" + String(letter), UInt16(first + i))) }
        }
        // F1..F10 are 59..68.
        for f in 1...10 { t.append(("KEY_F\(f)", UInt16(58 + f))) }
        return t
    }()

    private static let codeByName: [String: UInt16] = {
        var d: [String: UInt16] = [:]
        for (n, c) in table { d[n] = c }
        return d
    }()

    private static let nameByCode: [UInt16: String] = {
        var d: [UInt16: String] = [:]
        for (n, c) in table where d[c] == nil { d[c] = n }
        return d
    }()
}
