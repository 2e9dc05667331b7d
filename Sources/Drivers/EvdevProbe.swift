import CLinux
import Input
import Platform

/// Asks an open evdev device what it reports (EVIOCGNAME, EVIOCGPROP,
/// EVIOCGBIT, EVIOCGABS). nil when the descriptor is no evdev device.
public enum EvdevProbe {
    public static func capabilities(_ fd: Int32) -> InputCapabilities? {
        var types = [UInt8](repeating: 0, count: 4)
        guard ioctlRead(fd, nn_eviocgbit(0, UInt32(types.count)), &types) else { return nil }
        let supported = Set(InputCapabilities.bits(inMask: types))

        var caps = InputCapabilities(name: name(fd))
        var properties = [UInt8](repeating: 0, count: 4)
        if ioctlRead(fd, nn_eviocgprop(UInt32(properties.count)), &properties) {
            let set = InputCapabilities.bits(inMask: properties)
            caps.direct = set.contains(InputCapabilities.propertyDirect)
            caps.pointer = set.contains(InputCapabilities.propertyPointer)
        }
        if supported.contains(Int(EventType.key.rawValue)) {
            var keys = [UInt8](repeating: 0, count: Int(KeyCode.maximum) / 8 + 1)
            if ioctlRead(fd, nn_eviocgbit(UInt32(EventType.key.rawValue), UInt32(keys.count)), &keys) {
                caps.keys = Set(InputCapabilities.bits(inMask: keys).map { KeyCode(UInt16($0)) })
            }
        }
        if supported.contains(Int(EventType.absolute.rawValue)) {
            var axes = [UInt8](repeating: 0, count: Int(AbsoluteAxisCode.maximum) / 8 + 1)
            if ioctlRead(fd, nn_eviocgbit(UInt32(EventType.absolute.rawValue), UInt32(axes.count)), &axes) {
                for axis in InputCapabilities.bits(inMask: axes) {
                    var info = input_absinfo()
                    if nn_ioctl_ptr(fd, nn_eviocgabs(UInt32(axis)), &info) == 0 {
                        caps.axes[UInt16(axis)] = AxisRange(minimum: info.minimum, maximum: info.maximum)
                    }
                }
            }
        }
        return caps
    }

    /// Event timestamps from CLOCK_MONOTONIC, so tap timing survives the
    /// wall clock being set from the phone.
    public static func useMonotonicClock(_ fd: Int32) {
        var clock = Int32(CLOCK_MONOTONIC)
        _ = nn_ioctl_ptr(fd, nn_eviocsclockid(), &clock)
    }

    private static func name(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        guard ioctlRead(fd, nn_eviocgname(UInt32(buffer.count - 1)), &buffer) else { return "" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }), as: UTF8.self)
    }

    private static func ioctlRead(_ fd: Int32, _ request: UInt, _ buffer: inout [UInt8]) -> Bool {
        buffer.withUnsafeMutableBytes { nn_ioctl_ptr(fd, request, $0.baseAddress) } >= 0
    }
}
