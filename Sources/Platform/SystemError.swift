import CLinux

/// A failed system call: what we tried and the errno it gave.
public struct SystemError: Error, CustomStringConvertible {
    public var what: String
    public var code: Int32

    public init(_ what: String, code: Int32 = nn_errno()) {
        self.what = what
        self.code = code
    }

    public var message: String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }

    public var description: String { "\(what): \(message)" }

    public var isWouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }
    public var isInterrupted: Bool { code == EINTR }
}
