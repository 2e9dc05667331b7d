/// How the panel is mounted: the logical (drawn) image is turned clockwise by
/// this angle on the way to the physical framebuffer (what it does to
/// sizes, rectangles and points is the renderer's: Graphics' Rotation.swift).
public enum Rotation: Int {
    case none = 0
    case clockwise90 = 90
    case upsideDown = 180
    case clockwise270 = 270

    public init?(degrees: Int) { self.init(rawValue: ((degrees % 360) + 360) % 360) }
}
