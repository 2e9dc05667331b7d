import BluetoothCore

import CCrypto

/// Why a cryptographic step could not be carried out. Pairing turns any of
/// these into a Pairing Failed instead of continuing with a weak or missing value.
public enum CryptoError: Error, Equatable, CustomStringConvertible {
    /// An input of the wrong size reached a toolbox function.
    case badInputLength
    /// The peer's P-256 public key is not a point on the curve (CVE-2018-5383).
    case publicKeyNotOnCurve
    /// The system random number generator did not deliver.
    case randomUnavailable
    /// libcrypto refused an operation; the text names it and OpenSSL's error code.
    case library(String)

    public var description: String {
        switch self {
        case .badInputLength: return "input of the wrong length"
        case .publicKeyNotOnCurve: return "public key is not on the P-256 curve"
        case .randomUnavailable: return "no random numbers available"
        case .library(let what): return "libcrypto: " + what
        }
    }

    /// Names the failed call together with the oldest queued OpenSSL error,
    /// and empties the queue so a later failure is not blamed on this one.
    static func openSSL(_ call: String) -> CryptoError {
        let code = ERR_get_error()
        ERR_clear_error()
        return .library(call + " failed (error 0x" + hex(code, digits: 8) + ")")
    }
}
