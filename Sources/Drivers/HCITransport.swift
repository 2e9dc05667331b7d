import BluetoothCore
import CLinux
import HCI
import Platform

/// An open connection to a controller: one file descriptor carrying H4.
/// A user-channel socket carries exactly one packet per read and write; a
/// TCP stream or tty carries a byte stream that may cut packets anywhere.
final class HCITransport {
    let spec: TransportSpec
    let fd: Int32
    /// True when every write must be exactly one packet (user channel).
    let isPacketOriented: Bool
    /// The tty holding the hci_uart line discipline, kept open while in use.
    private let ttyFD: Int32

    private init(spec: TransportSpec, fd: Int32, packetOriented: Bool, ttyFD: Int32 = -1) {
        self.spec = spec
        self.fd = fd
        self.isPacketOriented = packetOriented
        self.ttyFD = ttyFD
    }

    static func open(_ spec: TransportSpec) throws(SystemError) -> HCITransport {
        switch spec {
        case .userChannel(let device):
            // One try: a controller still being set up is tried again by the
            // driver's schedule (HCIReopenSchedule), not waited for here,
            // which would hold the event loop and the first frame.
            return HCITransport(spec: spec, fd: try UserChannel.open(device: device), packetOriented: true)
        case let .uart(path, baud):
            let attached = try UARTAttach.attach(path: path, baud: baud)
            do {
                let fd = try openUserChannel(attached.device)
                return HCITransport(spec: spec, fd: fd, packetOriented: true, ttyFD: attached.ttyFD)
            } catch {
                FileDescriptor.close(attached.ttyFD)
                throw error
            }
        case let .tcp(host, port):
            return HCITransport(spec: spec, fd: try TCPConnect.connect(host: host, port: port), packetOriented: false)
        }
    }

    /// A device just attached to a UART by this process is set up by the
    /// kernel for a few seconds, and binding answers EBUSY meanwhile: retry
    /// for up to 15 s, saying so in the log (the tty must stay held).
    private static func openUserChannel(_ device: UInt16) throws(SystemError) -> Int32 {
        let giveUp = Clock.now().adding(seconds: 15)
        var announced = false
        while true {
            do {
                return try UserChannel.open(device: device)
            } catch {
                guard error.code == EBUSY, Clock.now() < giveUp else { throw error }
                if !announced {
                    Log.warning("hci", "hci\(device) is busy (kernel setup still running?); retrying for up to 15 s")
                    announced = true
                }
                var pause = timespec(tv_sec: 0, tv_nsec: 250_000_000)
                _ = nanosleep(&pause, nil)
            }
        }
    }

    func close() {
        FileDescriptor.close(fd)
        FileDescriptor.close(ttyFD)
    }
}
