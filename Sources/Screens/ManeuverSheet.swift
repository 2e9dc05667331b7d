import Graphics
import Guidance

/// Every maneuver arrow on its tile, in a grid: the icons without any text,
/// so the firmware's drawing can be compared pixel for pixel with the host
/// build's (`headunit render`, the aarch64 smoke test) without depending on
/// the FreeType version.
public enum ManeuverSheet {
    public static let columns = 4

    /// Every maneuver, then roundabouts with their exit numbers (one and two digits).
    public static let tiles: [(maneuver: Maneuver, exit: Int?)] =
        Maneuver.allCases.map { ($0, nil) } + [(.roundabout, 2), (.roundabout, 11)]

    /// The canvas size for tiles of `tile` pixels.
    public static func size(tile: Int) -> Size {
        let rows = (tiles.count + columns - 1) / columns
        return Size(width: columns * tile, height: rows * tile)
    }

    /// Draws the sheet in the night theme, as the navigation card does.
    public static func draw(on canvas: Canvas, tile: Int) {
        let theme = Theme.night
        canvas.clear(theme.background)
        let margin = tile / 16
        for (i, t) in tiles.enumerated() {
            let cell = Rect(x: (i % columns) * tile, y: (i / columns) * tile, width: tile, height: tile)
            let box = cell.insetBy(dx: margin, dy: margin)
            canvas.fillRoundedRect(box, radius: Float(tile) / 10, theme.accent)
            let inset = box.width * 14 / 100
            canvas.drawIcon(Icons.maneuver(t.maneuver, exit: t.exit), in: box.insetBy(dx: inset, dy: inset), color: theme.onAccent)
        }
        canvas.addDamage(canvas.bounds)
    }
}
