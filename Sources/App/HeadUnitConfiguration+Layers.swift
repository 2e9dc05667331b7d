import Config
import DisplaySettings
import Graphics
import SMP

/// The settings of the layers whose types the configuration does not link
/// (SMP's cryptography, the renderer's geometry), made from its values.
extension HeadUnitConfiguration {
    /// The pairing policy: the secure defaults with the configured IO capability.
    public var pairing: PairingConfiguration { PairingConfiguration(ioCapability: ioCapability) }

    /// Rotation, DRM connector and mode, and the size of png/none outputs.
    public var displayOptions: DisplayOptions {
        var options = DisplayOptions(rotation: rotation,
                                     drm: DRMPreferences(connector: connector, width: mode?.width, height: mode?.height,
                                                         refresh: mode?.refresh))
        if let mode { options.virtualSize = Size(width: mode.width, height: mode.height) }
        return options
    }
}
