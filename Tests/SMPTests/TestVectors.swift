import BluetoothCore

/// The specification prints values most significant octet first; the
/// toolbox takes SMP order. `spec("...")` converts a printed value.
func spec(_ text: String) -> [UInt8] {
    (bytesFromHex(text) ?? []).reversed()
}

/// Printed order, unchanged (AES-CMAC's RFC 4493 vectors, private keys).
func printed(_ text: String) -> [UInt8] {
    bytesFromHex(text) ?? []
}

/// Sample data of Vol 3 Part H Appendix D and 2.3.5.6.1.
enum Sample {
    // P-256 sample data (D.1); key A is also the SC debug key.
    static let privateA = printed("3f49f6d4 a3c55f38 74c9b3e3 d2103f50 4aff607b eb40b799 5899b8a6 cd3c1abd")
    static let publicAX = "20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6"
    static let publicAY = "dc809c49 652aeb6d 63329abf 5a52155c 766345c2 8fed3024 741c8ed0 1589d28b"
    static let privateB = printed("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd")
    static let publicBX = "1ea1f0f0 1faf1d96 09592284 f19e4c00 47b58afd 8615a69f 559077b2 2faaa190"
    static let publicBY = "4c55f33e 429dad37 7356703a 9ab85160 472d1130 e28e3676 5f89aff9 15b1214a"
    static let dhKey = "ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698"

    // f4..f6, g2 (D.2-D.5).
    static let n1 = "d5cb8454 d177733e ffffb2ec 712baeab"
    static let n2 = "a6e8e7cc 25a75f6e 216583f7 ff3dc4cf"
    static let a1 = "00561237 37bfce"
    static let a2 = "00a71370 2dcfc1"
    static let macKey = "2965f176 a1084a02 fd3f6a20 ce636e20"
    static let ltk = "69867911 69d7cd23 980522b5 94750a38"
}
