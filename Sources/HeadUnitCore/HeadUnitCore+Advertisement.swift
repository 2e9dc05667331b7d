import AMS
import ANCS
import GhostDrop
import HCI
import NotifBridge

/// The one name iOS lists the head unit under, in Settings → Bluetooth and
/// in NotifBridge's accessory picker alike (docs/NOTIFBRIDGE.md, "One name
/// in iOS's lists"), and what carries it on air.
enum HeadUnitName {
    /// NotifBridge's picker lists only advertisers whose name contains this
    /// (the app's `NSAccessorySetupBluetoothNames`).
    static let notifBridgeMarker = "NotifBdg"
    /// The longest name a payload's scan response holds whole (31 − 2).
    static let maxBytes = AdvertisingPayload.maxLength - 2

    /// From the configuration and the persistent client name only, so that
    /// it is the same at every start: `device-name` or `NavigationNotifier
    /// HU-3F9A21`; with NotifBridge on, the picker's marker first and then
    /// `device-name` or the client name's digits (`NotifBdg 3F9A21`). The
    /// marker leads because a controller with one advertising set has room
    /// for 11 bytes of name (`AdvertisingPayload.combined`) and a shortened
    /// name is the beginning of the complete one: the picker still finds
    /// `NotifBdg 3F`, and two head units side by side differ there.
    static func of(deviceName: String?, clientName: String, notifBridge: Bool) -> String {
        let digits = clientName.hasPrefix("HU-") ? String(clientName.dropFirst(3)) : clientName
        let name = notifBridge ? notifBridgeMarker + " " + (deviceName ?? digits)
                               : deviceName ?? "NavigationNotifier " + clientName
        return AdvertisingPayload.prefix(of: name, maxBytes: maxBytes)
    }
}

extension HeadUnitCore {
    /// What the controller is asked to advertise: the Settings accessory
    /// (ANCS solicited, AMS where there is room) and, when NotifBridge is
    /// on, NotifBridge's service, on a set each or combined in one
    /// payload; and GhostDrop's service, which its sender scans for
    /// (docs/GHOSTDROP.md, "The capabilities on air"), on a set of its own
    /// or taking turns with the first payload (`Advertisement.extra`);
    /// `name` in every one of them.
    func advertisement(named name: String) -> Advertisement {
        let settings = AdvertisingPayload.accessory(name: name, soliciting: [ANCSUUIDs.service, AMSUUIDs.service])
        let ghostDrop = AdvertisingPayload.offering(GhostDropService.service, name: name)
        guard notifBridge != nil else { return Advertisement(settings, extra: ghostDrop) }
        return Advertisement(sets: [settings, AdvertisingPayload.offering(NotifBridgeUUIDs.service, name: name)],
                             combined: AdvertisingPayload.combined(name: name, soliciting: [ANCSUUIDs.service],
                                                                   service: NotifBridgeUUIDs.service),
                             extra: ghostDrop)
    }
}
