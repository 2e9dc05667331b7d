import BluetoothCore

/// Parsed advertising or scan-response data (Core Supplement Part A). Each
/// AD structure is length, type, value; a structure whose length runs past
/// the end, or a zero length before the end, ends parsing of what follows
/// but keeps what was already read. Fields that appear in both the
/// advertising data and the scan response are merged by `merge`.
public struct AdvertisingData: Equatable {
    public var flags: UInt8?
    public var shortName: String?
    public var completeName: String?
    public var serviceUUIDs: [BluetoothUUID] = []
    /// True when a list was marked complete (types 0x03, 0x05, 0x07).
    public var serviceListComplete = false
    /// Services the advertiser solicits (AD types 0x14, 0x1F, 0x15).
    public var solicitedServiceUUIDs: [BluetoothUUID] = []
    public var manufacturerData: [(company: UInt16, data: [UInt8])] = []
    public var txPower: Int8?
    public var appearance: UInt16?
    /// How many AD structures were malformed and skipped.
    public var malformedCount = 0

    public static let typeFlags: UInt8 = 0x01
    public static let typeIncomplete16: UInt8 = 0x02
    public static let typeComplete16: UInt8 = 0x03
    public static let typeIncomplete32: UInt8 = 0x04
    public static let typeComplete32: UInt8 = 0x05
    public static let typeIncomplete128: UInt8 = 0x06
    public static let typeComplete128: UInt8 = 0x07
    public static let typeShortName: UInt8 = 0x08
    public static let typeCompleteName: UInt8 = 0x09
    public static let typeTxPower: UInt8 = 0x0A
    public static let typeSolicitation16: UInt8 = 0x14
    public static let typeSolicitation128: UInt8 = 0x15
    public static let typeAppearance: UInt8 = 0x19
    public static let typeSolicitation32: UInt8 = 0x1F
    public static let typeManufacturer: UInt8 = 0xFF

    public init() {}

    public init(_ bytes: [UInt8]) {
        self.init()
        merge(bytes)
    }

    public static func == (a: AdvertisingData, b: AdvertisingData) -> Bool {
        a.flags == b.flags && a.shortName == b.shortName && a.completeName == b.completeName
            && a.serviceUUIDs == b.serviceUUIDs && a.serviceListComplete == b.serviceListComplete
            && a.solicitedServiceUUIDs == b.solicitedServiceUUIDs
            && a.txPower == b.txPower && a.appearance == b.appearance && a.malformedCount == b.malformedCount
            && a.manufacturerData.count == b.manufacturerData.count
            && zip(a.manufacturerData, b.manufacturerData).allSatisfy { $0.company == $1.company && $0.data == $1.data }
    }

    /// The best name known: complete before shortened.
    public var name: String? { completeName ?? shortName }

    public func advertises(_ uuid: BluetoothUUID) -> Bool { serviceUUIDs.contains(uuid) }

    /// Adds the AD structures of `bytes` (advertising data or scan response).
    public mutating func merge(_ bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            if length == 0 {
                // Zero padding ends the significant part (Core Supplement A 1.1... a
                // zero length is allowed only as trailing padding).
                if bytes[index...].contains(where: { $0 != 0 }) { malformedCount += 1 }
                return
            }
            guard index + 1 + length <= bytes.count else {
                malformedCount += 1
                Log.debug("adv", "AD structure of length \(length) runs past the end of \(bytes.count) bytes; ignored")
                return
            }
            let type = bytes[index + 1]
            let value = bytes[(index + 2)..<(index + 1 + length)]
            apply(type: type, value: value)
            index += 1 + length
        }
    }

    private mutating func apply(type: UInt8, value: ArraySlice<UInt8>) {
        switch type {
        case AdvertisingData.typeFlags:
            guard let f = value.first else { malformedCount += 1; return }
            flags = f
        case AdvertisingData.typeIncomplete16, AdvertisingData.typeComplete16:
            addUUIDs(value, width: 2, complete: type == AdvertisingData.typeComplete16)
        case AdvertisingData.typeIncomplete32, AdvertisingData.typeComplete32:
            addUUIDs(value, width: 4, complete: type == AdvertisingData.typeComplete32)
        case AdvertisingData.typeIncomplete128, AdvertisingData.typeComplete128:
            addUUIDs(value, width: 16, complete: type == AdvertisingData.typeComplete128)
        case AdvertisingData.typeSolicitation16:
            addSolicited(value, width: 2)
        case AdvertisingData.typeSolicitation32:
            addSolicited(value, width: 4)
        case AdvertisingData.typeSolicitation128:
            addSolicited(value, width: 16)
        case AdvertisingData.typeShortName:
            shortName = decodeName(value)
        case AdvertisingData.typeCompleteName:
            completeName = decodeName(value)
        case AdvertisingData.typeTxPower:
            guard value.count == 1, let v = value.first else { malformedCount += 1; return }
            txPower = Int8(bitPattern: v)
        case AdvertisingData.typeAppearance:
            guard value.count == 2 else { malformedCount += 1; return }
            appearance = UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8
        case AdvertisingData.typeManufacturer:
            guard value.count >= 2 else { malformedCount += 1; return }
            let company = UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8
            manufacturerData.append((company, Array(value.dropFirst(2))))
        default:
            break
        }
    }

    private mutating func addUUIDs(_ value: ArraySlice<UInt8>, width: Int, complete: Bool) {
        guard let uuids = uuids(in: value, width: width) else { return }
        for uuid in uuids where !serviceUUIDs.contains(uuid) { serviceUUIDs.append(uuid) }
        if complete { serviceListComplete = true }
    }

    private mutating func addSolicited(_ value: ArraySlice<UInt8>, width: Int) {
        guard let uuids = uuids(in: value, width: width) else { return }
        for uuid in uuids where !solicitedServiceUUIDs.contains(uuid) { solicitedServiceUUIDs.append(uuid) }
    }

    /// A list of `width`-byte UUIDs; nil (and counted as malformed) when
    /// the length is not a multiple of `width`.
    private mutating func uuids(in value: ArraySlice<UInt8>, width: Int) -> [BluetoothUUID]? {
        guard value.count % width == 0 else {
            malformedCount += 1
            return nil
        }
        var out: [BluetoothUUID] = []
        var i = value.startIndex
        while i < value.endIndex {
            if let uuid = BluetoothUUID(littleEndian: value[i..<(i + width)]) { out.append(uuid) }
            i += width
        }
        return out
    }

    /// Names are UTF-8; invalid sequences become U+FFFD rather than failing.
    private func decodeName(_ value: ArraySlice<UInt8>) -> String {
        String(decoding: value, as: UTF8.self)
    }
}

/// Encoding: `ADStructure` builds on it for our own advertising.
extension AdvertisingData {
    public static func structure(_ type: UInt8, _ value: [UInt8]) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value.count + 1), type] + value
    }
}
