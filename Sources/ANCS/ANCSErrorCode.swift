import BluetoothCore

/// The errors an ANCS Control Point write can end with: the four ANCS
/// application errors, the ATT errors that mean the phone refuses the head
/// unit access to ANCS altogether, and those that say the link is not
/// secure enough for it.
public enum ANCSErrorCode {
    /// The command ID is not known to the phone.
    public static let unknownCommand: UInt8 = 0xA0
    /// The command is malformed.
    public static let invalidCommand: UInt8 = 0xA1
    /// A parameter (usually the NotificationUID) is unknown: the
    /// notification is gone.
    public static let invalidParameter: UInt8 = 0xA2
    /// PerformNotificationAction failed on the phone.
    public static let actionFailed: UInt8 = 0xA3

    static let writeNotPermitted: UInt8 = 0x03
    static let insufficientAuthentication: UInt8 = 0x05
    static let insufficientAuthorization: UInt8 = 0x08
    static let insufficientEncryption: UInt8 = 0x0F

    /// Why an error means "this head unit may not read notifications", if
    /// it does: on an encrypted, bonded link iOS answers so when the user has
    /// not allowed notifications for the accessory (Insufficient
    /// Authorization: its "Allow … to receive your notifications?" is still
    /// open, or was declined) or has switched "Share System Notifications"
    /// off for it (Write Not Permitted). Only the user can change that.
    public static func sharingRefusal(_ code: UInt8) -> SharingRefusal? {
        switch code {
        case insufficientAuthorization: return .notAllowed
        case writeNotPermitted: return .switchedOff
        default: return nil
        }
    }

    /// Errors saying the phone does not take this link as secure: not
    /// encrypted (any more), or encrypted with keys it no longer accepts
    /// (it lost the bond, or wants an authenticated key). The link must be
    /// encrypted again, or paired again; the user's switch has nothing to do
    /// with it.
    public static func meansSecurityRequired(_ code: UInt8) -> Bool {
        code == insufficientAuthentication || code == insufficientEncryption
    }

    public static func name(_ code: UInt8) -> String {
        switch code {
        case unknownCommand: return "unknown command (0xa0)"
        case invalidCommand: return "invalid command (0xa1)"
        case invalidParameter: return "invalid parameter (0xa2)"
        case actionFailed: return "action failed (0xa3)"
        case writeNotPermitted: return "write not permitted (0x03)"
        case insufficientAuthentication: return "insufficient authentication (0x05)"
        case insufficientAuthorization: return "insufficient authorization (0x08)"
        case insufficientEncryption: return "insufficient encryption (0x0f)"
        default: return "ATT error 0x" + hex(code, digits: 2)
        }
    }
}
