import HPKE
import Testing

/// ML-KEM-768 against NIST's ACVP vectors (Vectors/mlkem768-*.txt).
struct MLKEM768Tests {
    /// The cases of a file that holds three.
    private func threeCases(_ name: String) throws -> [[String: String]] {
        let cases = try VectorFile(name).cases
        #expect(cases.count == 3)
        return cases
    }

    @Test func keyGenMatchesACVP() throws {
        for vector in try threeCases("mlkem768-keygen.txt") {
            let (ek, dk) = try MLKEM768.keyGen(d: vector.bytes("d"), z: vector.bytes("z"))
            expect(ek, is: "ek", of: vector)
            expect(dk, is: "dk", of: vector)
        }
    }

    @Test func encapsulationMatchesACVP() throws {
        for vector in try threeCases("mlkem768-encaps.txt") {
            let (key, ciphertext) = try MLKEM768.encapsulate(encapsulationKey: vector.bytes("ek"), message: vector.bytes("m"))
            expect(ciphertext, is: "c", of: vector)
            expect(key, is: "k", of: vector)
            // The same ciphertext decapsulates to the same key with the matching dk.
            expect(try MLKEM768.decapsulate(decapsulationKey: vector.bytes("dk"), ciphertext: vector.bytes("c")), is: "k", of: vector)
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
            expect(try MLKEM768.decapsulate(decapsulationKey: dk, ciphertext: vector.bytes("c")), is: "k", of: vector)
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

/// The bytes equal the vector's field, reported with the case's ACVP tcId.
func expect(_ actual: [UInt8], is field: String, of vector: [String: String], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(hexString(actual) == hexString(vector.bytes(field)),
            "tcId \(vector["tcId"] ?? "?") \(vector["reason"] ?? "") \(field)", sourceLocation: sourceLocation)
}
