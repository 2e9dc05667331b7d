import BluetoothCore
import CBlueZ
import CLinux
import Platform

/// Opens a BlueZ device with HCI_CHANNEL_USER: the kernel hands us the raw
/// controller and stays out of the way (no bluetoothd, no D-Bus). The device
/// must be down first, which needs CAP_NET_ADMIN.
enum UserChannel {
    static func open(device: UInt16) throws(SystemError) -> Int32 {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), BTPROTO_HCI)
        guard fd >= 0 else {
            let e = SystemError("socket(AF_BLUETOOTH)")
            if e.code == EAFNOSUPPORT {
                throw SystemError("socket(AF_BLUETOOTH): this kernel has no Bluetooth support (load the bluetooth module)", code: e.code)
            }
            throw e
        }
        // Binding the user channel fails with EBUSY while the kernel has the
        // device up, so bring it down first (on the socket itself), but only
        // when it is up: HCIDEVDOWN on a device the kernel has just
        // registered cancels its queued power-on work, which is what ends
        // the device's setup phase, and binding would then answer EBUSY
        // until the device is removed.
        var info = hci_dev_info()
        info.dev_id = device
        if nn_ioctl_ptr(fd, nn_hcigetdevinfo(), &info) < 0 {
            let e = SystemError("HCIGETDEVINFO hci\(device)")
            FileDescriptor.close(fd)
            if e.code == ENODEV { throw SystemError("hci\(device): no such Bluetooth device", code: e.code) }
            throw e
        }
        if info.flags & (UInt32(1) << UInt32(HCI_UP)) != 0, nn_ioctl_int(fd, nn_hcidevdown(), Int(device)) < 0 {
            let e = SystemError("HCIDEVDOWN hci\(device)")
            if e.code == EPERM || e.code == EACCES {
                FileDescriptor.close(fd)
                throw SystemError("hci\(device): bringing the device down needs CAP_NET_ADMIN (run as root)", code: e.code)
            }
            // EALREADY and friends: the device went down meanwhile.
        }
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = device
        address.hci_channel = UInt16(HCI_CHANNEL_USER)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size))
            }
        }
        guard result == 0 else {
            let e = SystemError("bind HCI_CHANNEL_USER hci\(device)")
            FileDescriptor.close(fd)
            switch e.code {
            case EBUSY: throw SystemError("hci\(device) is busy (the kernel is still setting it up, or another program uses it)", code: e.code)
            case EPERM, EACCES: throw SystemError("hci\(device): the user channel needs CAP_NET_ADMIN (run as root)", code: e.code)
            case ENODEV: throw SystemError("hci\(device): no such Bluetooth device", code: e.code)
            default: throw e
            }
        }
        return fd
    }
}
