"""The phone's NotifBridge app (iOS 26.5 AccessoryNotifications over BLE):
`xwing` (X-Wing, HPKE, AES-GCM), `swift_json` (JSONEncoder's bytes),
`framing`, `messages`, `sender` (the GATT client), `picker` (finding the
accessory), `faults` and `commands` (the control protocol's notifbridge_*)."""
