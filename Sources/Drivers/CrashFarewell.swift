import BluetoothCore
import CLinux
import HCI
import Platform

/// What a crashing firmware says to its controller before it dies: HCI
/// Disconnect (Remote User Terminated) for each live link, written by the
/// crash signal's handler (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
/// SIGTRAP, SIGSYS; `CLinux/shim.h`). Without it the phone learns of the
/// crash only from its supervision timeout, after the restarted firmware
/// has reset the controller (which ends links without a word), and until
/// then it neither advertises nor accepts the new connection. SIGKILL and
/// a hang (the watchdog's reset) still cost the supervision timeout.
///
/// The bytes are made here, in advance, whenever the links or the
/// descriptor change; the handler only writes them. Every call into the C
/// side is in this file: each Swift file that inlines shim.h's functions
/// has its own copy of their state.
struct CrashFarewell {
    /// What the handler would write now, and to which descriptor.
    private var fd: Int32 = -1
    private var links: [ConnectionHandle] = []
    private var installed = false

    /// The bytes fit the handler's buffer (128 bytes, 7 per Disconnect).
    static let maximumLinks = 18

    /// Arms the handler for `links` on `fd`, or disarms it (`fd` nil or no links).
    mutating func update(fd newFD: Int32?, links newLinks: [ConnectionHandle]) {
        let fd = newFD ?? -1
        let kept = newLinks.prefix(fd < 0 ? 0 : Self.maximumLinks)
        // Asked every turn, and mostly as armed: compared where the links
        // lie, copied only when they changed.
        guard fd != self.fd || kept != self.links[...] else { return }
        self.fd = fd
        let links = Array(kept)
        self.links = links
        if !links.isEmpty && !installed {
            installed = true
            if nn_farewell_install() != 0 {
                Log.warning("hci", "crash handler not installed (errno \(nn_errno())): a crash ends links by the phone's supervision timeout")
            }
        }
        var bytes: [UInt8] = []
        for handle in links { bytes.append(contentsOf: HCICommand.disconnect(handle).packet.h4Bytes) }
        _ = bytes.withUnsafeBufferPointer { buffer in
            nn_farewell_set(fd, buffer.baseAddress, Int32(buffer.count), Int32(links.count))
        }
    }
}
