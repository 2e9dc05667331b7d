import BluetoothCore
import CBlueZ
import CLinux
import Platform

/// Attaches the kernel's hci_uart line discipline to a tty with the H4
/// protocol, the way `btattach -R` does, so the controller behind the UART
/// becomes a raw BlueZ device (hciN) that only the head unit talks to.
/// The tty must stay open: closing it detaches the discipline and the
/// device disappears.
enum UARTAttach {
    struct Attached {
        var ttyFD: Int32
        var device: UInt16
    }

    static func attach(path: String, baud: Int) throws(SystemError) -> Attached {
        let fd = nn_open(path, O_RDWR | O_NOCTTY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        var ok = false
        defer { if !ok { FileDescriptor.close(fd) } }

        var tio = termios()
        guard tcgetattr(fd, &tio) == 0 else { throw SystemError("tcgetattr \(path)") }
        cfmakeraw(&tio)
        tio.c_cflag |= tcflag_t(CLOCAL | CREAD)
        guard let speed = speedConstant(baud) else { throw SystemError("\(path): unsupported baud rate \(baud)", code: EINVAL) }
        guard cfsetspeed(&tio, speed) == 0, tcsetattr(fd, TCSANOW, &tio) == 0 else { throw SystemError("tcsetattr \(path)") }
        _ = tcflush(fd, TCIOFLUSH)

        var discipline = NN_N_HCI
        guard nn_ioctl_ptr(fd, UInt(TIOCSETD), &discipline) == 0 else {
            let e = SystemError("TIOCSETD N_HCI on \(path)")
            if e.code == EINVAL {
                throw SystemError("\(path): the kernel has no hci_uart line discipline (load the hci_uart module)", code: e.code)
            }
            throw e
        }
        // A raw device: without it the kernel initialises the new hciN itself
        // (Read Local Features, LE setup...) before the head unit can bind
        // its user channel, and a controller that refuses one of those
        // commands leaves the device in setup for good (EBUSY forever).
        // Flags must be set before the protocol.
        guard nn_ioctl_int(fd, nn_hciuart_setflags(), Int(NN_HCI_UART_RAW_DEVICE_FLAG)) == 0 else {
            throw SystemError("HCIUARTSETFLAGS raw on \(path)")
        }
        guard nn_ioctl_int(fd, nn_hciuart_setproto(), Int(NN_HCI_UART_H4)) == 0 else {
            throw SystemError("HCIUARTSETPROTO H4 on \(path)")
        }
        let device = nn_ioctl_int(fd, nn_hciuart_getdevice(), 0)
        guard device >= 0 else { throw SystemError("HCIUARTGETDEVICE on \(path)") }
        ok = true
        Log.info("uart", "\(path) at \(baud) baud attached as hci\(device)")
        return Attached(ttyFD: fd, device: UInt16(device))
    }

    private static func speedConstant(_ baud: Int) -> speed_t? {
        switch baud {
        case 9600: return speed_t(B9600)
        case 19200: return speed_t(B19200)
        case 38400: return speed_t(B38400)
        case 57600: return speed_t(B57600)
        case 115_200: return speed_t(B115200)
        case 230_400: return speed_t(B230400)
        case 460_800: return speed_t(B460800)
        case 921_600: return speed_t(B921600)
        case 1_000_000: return speed_t(B1000000)
        case 1_500_000: return speed_t(B1500000)
        case 2_000_000: return speed_t(B2000000)
        case 3_000_000: return speed_t(B3000000)
        case 4_000_000: return speed_t(B4000000)
        default: return nil
        }
    }
}
