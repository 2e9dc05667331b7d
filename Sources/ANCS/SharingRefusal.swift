/// What the driver has to do on the iPhone for the head unit to get
/// notifications: the two ways iOS says it will not share them.
public enum SharingRefusal: Equatable {
    /// Not allowed (yet): answer iOS's "Allow … to receive your
    /// notifications?" with Allow (Insufficient Authorization, 0x08).
    case notAllowed
    /// "Share System Notifications" is off for this head unit in the
    /// iPhone's Bluetooth settings (Write Not Permitted, 0x03).
    case switchedOff
}
