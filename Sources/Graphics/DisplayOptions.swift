import DisplaySettings

/// Settings that shape an output beyond its `--display` spec.
public struct DisplayOptions {
    /// How the panel is mounted.
    public var rotation: Rotation
    /// DRM connector and mode choices (automatic when nil).
    public var drm: DRMPreferences
    /// Panel size of the `png` and `none` outputs.
    public var virtualSize: Size
    /// Numbered PNG frames kept on disk (0 keeps all).
    public var keepFrames: Int
    /// Time between attempts while no display is available.
    public var retryMilliseconds: Int64

    public init(rotation: Rotation = .none, drm: DRMPreferences = DRMPreferences(),
                virtualSize: Size = Size(width: 800, height: 480), keepFrames: Int = 1000, retryMilliseconds: Int64 = 2000) {
        self.rotation = rotation
        self.drm = drm
        self.virtualSize = virtualSize
        self.keepFrames = keepFrames
        self.retryMilliseconds = retryMilliseconds
    }
}
