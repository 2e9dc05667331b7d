import BluetoothCore

/// The NavigationNotifier service the phone app exposes (fixed contract,
/// see the README's "Phone contract").
public enum NavigationNotifierUUIDs {
    public static let service = BluetoothUUID(high: 0xAB31_2B45_A8A1_4BCE, low: 0x97E7_7D3D_97FB_541E)
    public static let serverName = BluetoothUUID(high: 0x0168_FE9F_4277_4AE7, low: 0xAC4A_3051_F3A0_C106)
    public static let pairedClientName = BluetoothUUID(high: 0x4C23_4FB3_71AB_4855, low: 0x92D4_EC58_BF16_3290)
}
