import Graphics

/// Parts of the screen redrawn independently.
public enum ScreenRegion: Equatable {
    case state, counters, clock
    case navArrow, navDistance, navApp, navText
    case musicMeta, musicIcon, musicProgress
    case hint, idle, pairing
    /// A GhostDrop transfer's band.
    case transfer
}

/// One thing the renderer drew, kept for diagnostics and tests: the box it
/// was given and the pixels its glyphs or shape actually covered.
public struct DrawnElement: Equatable {
    public var region: ScreenRegion
    public var name: String
    /// The text drawn, or "" for a shape.
    public var text: String
    public var box: Rect
    public var ink: Rect

    public init(region: ScreenRegion, name: String, text: String, box: Rect, ink: Rect) {
        self.region = region; self.name = name; self.text = text; self.box = box; self.ink = ink
    }
}
