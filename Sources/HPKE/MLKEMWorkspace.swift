/// Everything one ML-KEM-768 operation works in: the polynomials, the hash
/// context and byte buffers, allocated once per operation and wiped when
/// it ends.
final class MLKEMWorkspace {
    let keccak = Keccak()
    let polynomials = PolynomialScratch(polynomials: 13)
    /// SHAKE128 output for SampleNTT (public: derived from ρ only).
    var xofStream = [UInt8](repeating: 0, count: 3 * Sampling.xofBlock)
    /// PRF output for the centred binomial sampler (secret, wiped after each use).
    let prfStream = UnsafeMutablePointer<UInt8>.allocate(capacity: 128)
    /// Hash inputs and outputs: G's 64 bytes (ρ ‖ σ or K ‖ r), the message.
    let seeds = UnsafeMutablePointer<UInt8>.allocate(capacity: 128)
    /// The re-encrypted ciphertext of decapsulation.
    let ciphertext = UnsafeMutablePointer<UInt8>.allocate(capacity: MLKEM768.ciphertextCount)

    init() {
        prfStream.initialize(repeating: 0, count: 128)
        seeds.initialize(repeating: 0, count: 128)
        ciphertext.initialize(repeating: 0, count: MLKEM768.ciphertextCount)
    }

    deinit {
        wipe(prfStream, count: 128)
        wipe(seeds, count: 128)
        wipe(ciphertext, count: MLKEM768.ciphertextCount)
        prfStream.deallocate()
        seeds.deallocate()
        ciphertext.deallocate()
    }
}
