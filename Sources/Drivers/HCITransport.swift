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

    /// One try at opening `spec`. A UART is attached once (`uart` holds it
    /// between tries) and then bound: the device just attached is in the
    /// kernel's setup for a moment and binding answers EBUSY meanwhile,
    /// which is thrown like any failure and tried again on the driver's
    /// schedule (HCIReopenSchedule), with the tty still held. Nothing here
    /// waits: a wait would hold the event loop and the first frame.
    static func open(_ spec: TransportSpec, uart: inout UARTAttach.Attached?) throws(SystemError) -> HCITransport {
        switch spec {
        case .userChannel(let device):
            return HCITransport(spec: spec, fd: try UserChannel.open(device: device), packetOriented: true)
        case let .uart(path, baud):
            let attached: UARTAttach.Attached
            if let held = uart {
                attached = held
            } else {
                attached = try UARTAttach.attach(path: path, baud: baud)
                uart = attached
            }
            do {
                let fd = try UserChannel.open(device: attached.device)
                uart = nil
                return HCITransport(spec: spec, fd: fd, packetOriented: true, ttyFD: attached.ttyFD)
            } catch {
                // Still in its setup: keep the tty (closing it would remove
                // the device). Anything else: attach again next time.
                if error.code != EBUSY {
                    FileDescriptor.close(attached.ttyFD)
                    uart = nil
                }
                throw error
            }
        case let .tcp(host, port):
            return HCITransport(spec: spec, fd: try TCPConnect.connect(host: host, port: port), packetOriented: false)
        }
    }

    func close() {
        FileDescriptor.close(fd)
        FileDescriptor.close(ttyFD)
    }
}
