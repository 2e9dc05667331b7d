import HPKE
import Testing

/// ML-KEM-768 against NIST's ACVP vectors (Vectors/mlkem768-*.txt).
struct MLKEM768Tests {
    @Test func keyGenMatchesACVP() throws {
        let file = try VectorFile("mlkem768-keygen.txt")
        #expect(file.cases.count == 3)
        for vector in file.cases {
            let (ek, dk) = try MLKEM768.keyGen(d: vector.bytes("d"), z: vector.bytes("z"))
            #expect(hexString(ek) == hexString(vector.bytes("ek")), "tcId \(vector["tcId"] ?? "?")")
            #expect(hexString(dk) == hexString(vector.bytes("dk")), "tcId \(vector["tcId"] ?? "?")")
        }
    }

    @Test func encapsulationMatchesACVP() throws {
        let file = try VectorFile("mlkem768-encaps.txt")
        #expect(file.cases.count == 3)
        for vector in file.cases {
            let (key, ciphertext) = try MLKEM768.encapsulate(encapsulationKey: vector.bytes("ek"), message: vector.bytes("m"))
            #expect(hexString(ciphertext) == hexString(vector.bytes("c")), "tcId \(vector["tcId"] ?? "?")")
            #expect(hexString(key) == hexString(vector.bytes("k")), "tcId \(vector["tcId"] ?? "?")")
            // The same ciphertext decapsulates to the same key with the matching dk.
            let decapsulated = try MLKEM768.decapsulate(decapsulationKey: vector.bytes("dk"), ciphertext: vector.bytes("c"))
            #expect(hexString(decapsulated) == hexString(vector.bytes("k")), "tcId \(vector["tcId"] ?? "?")")
        }
    }

    /// Valid ciphertexts give K; modified ones give the implicit-rejection
    /// key J(z ‖ c), as ACVP lists them.
    @Test func decapsulationMatchesACVPIncludingImplicitRejection() throws {
        let file = try VectorFile("mlkem768-decaps.txt")
        let key = file.cases[0]
        let dk = key.bytes("dk")
        #expect(dk.count == MLKEM768.decapsulationKeyCount)
        let cases = file.cases.dropFirst()
        #expect(cases.count == 10)
        #expect(cases.contains { $0["reason"] == "modify-ciphertext" })
        #expect(cases.contains { $0["reason"] == "no-modification" })
        for vector in cases {
            let k = try MLKEM768.decapsulate(decapsulationKey: dk, ciphertext: vector.bytes("c"))
            #expect(hexString(k) == hexString(vector.bytes("k")), "tcId \(vector["tcId"] ?? "?") \(vector["reason"] ?? "")")
        }
    }

    @Test func wrongSizesAreRefused() {
        #expect(throws: HPKEError.invalidLength) { try MLKEM768.keyGen(d: [UInt8](repeating: 0, count: 31), z: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: HPKEError.invalidLength) {
            try MLKEM768.decapsulate(decapsulationKey: [UInt8](repeating: 0, count: 2400), ciphertext: [UInt8](repeating: 0, count: 1087))
        }
        #expect(throws: HPKEError.invalidLength) {
            try MLKEM768.encapsulate(encapsulationKey: [UInt8](repeating: 0, count: 1183), message: [UInt8](repeating: 0, count: 32))
        }
    }
}
