import BluetoothCore
import CLinux
import Platform

/// A TCP client connection for the `tcp:` HCI transport (a simulated
/// controller). The connect itself waits at most `timeoutMilliseconds`:
/// it is only ever made to a simulator, normally on loopback.
enum TCPConnect {
    static func connect(host: String, port: UInt16, timeoutMilliseconds: Int32 = 2000) throws(SystemError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>? = nil
        let rc = getaddrinfo(host, "\(port)", &hints, &result)
        guard rc == 0, let first = result else {
            throw SystemError("resolve \(host): \(rc == 0 ? "no address" : String(cString: gai_strerror(rc)))", code: EINVAL)
        }
        defer { freeaddrinfo(result) }
        var lastError = SystemError("connect \(host):\(port)", code: ECONNREFUSED)
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let ai = entry {
            entry = ai.pointee.ai_next
            let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), ai.pointee.ai_protocol)
            guard fd >= 0 else { lastError = SystemError("socket"); continue }
            if CLinux.connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 || nn_errno() == EINPROGRESS {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&p, 1, timeoutMilliseconds) == 1 {
                    var soError: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
                    if soError == 0 {
                        var one: Int32 = 1
                        // H4 packets are small and latency matters more than batching.
                        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                        return fd
                    }
                    lastError = SystemError("connect \(host):\(port)", code: soError)
                } else {
                    lastError = SystemError("connect \(host):\(port): timed out", code: ETIMEDOUT)
                }
            } else {
                lastError = SystemError("connect \(host):\(port)")
            }
            FileDescriptor.close(fd)
        }
        throw lastError
    }
}
