import BluetoothCore

/// The return parameters of one command's Command Complete, decoded and
/// length-checked here in HCI so that no layer above reads reply bytes.
public protocol CommandReturn {
    /// Decodes what follows the status byte; nil when it is too short or
    /// cannot be what the command returns.
    init?(returnParameters reader: inout ByteReader)
}

/// Why a command did not give its return parameters.
public enum CommandFailure: Error, Equatable, CustomStringConvertible {
    /// The controller answered with this error status (Command Complete or
    /// Command Status).
    case status(HCIStatus)
    /// No answer within the command timeout, or the controller was reset first.
    case notAnswered
    /// A reply too short for its return parameters, or one that cannot
    /// answer the command (a Command Status where Command Complete belongs,
    /// another connection handle): `length` is how many bytes it carried.
    case malformedReply(HCIOpcode, length: Int)

    public var description: String {
        switch self {
        case .status(let status): return status.description
        case .notAnswered: return "no answer"
        case let .malformedReply(opcode, length): return "malformed reply to \(opcode) (\(length) bytes)"
        }
    }
}

extension CommandResult {
    /// The typed return parameters of `opcode`'s Command Complete, the
    /// status checked first.
    public func decode<R: CommandReturn>(_: R.Type, for opcode: HCIOpcode) -> Result<R, CommandFailure> {
        switch self {
        case .notAnswered:
            return .failure(.notAnswered)
        case .pending(let status):
            return .failure(status.isSuccess ? .malformedReply(opcode, length: 0) : .status(status))
        case .complete(let parameters):
            var reader = ByteReader(parameters)
            guard let status = reader.u8() else { return .failure(.malformedReply(opcode, length: 0)) }
            guard status == 0 else { return .failure(.status(HCIStatus(status))) }
            guard let decoded = R(returnParameters: &reader) else {
                return .failure(.malformedReply(opcode, length: parameters.count))
            }
            return .success(decoded)
        }
    }
}
