import BluetoothCore

/// One AD structure we advertise (Core Supplement Part A 1): the typed
/// counterpart of what `AdvertisingData` parses.
public enum ADStructure: Equatable {
    case flags(UInt8)
    case completeName(String)
    case shortenedName(String)
    /// AD type 0x15: services the advertiser wants a central to offer it.
    /// iOS lists accessories that solicit ANCS in Settings → Bluetooth.
    case solicitedServices128([BluetoothUUID])
    /// AD type 0x07: the complete list of the 128-bit services offered.
    case services128([BluetoothUUID])

    /// LE General Discoverable Mode (0x02) | BR/EDR Not Supported (0x04).
    public static let generalDiscoverableLEOnly: UInt8 = 0x06

    public var type: UInt8 {
        switch self {
        case .flags: return AdvertisingData.typeFlags
        case .completeName: return AdvertisingData.typeCompleteName
        case .shortenedName: return AdvertisingData.typeShortName
        case .solicitedServices128: return AdvertisingData.typeSolicitation128
        case .services128: return AdvertisingData.typeComplete128
        }
    }

    public var value: [UInt8] {
        switch self {
        case .flags(let f): return [f]
        case .completeName(let n), .shortenedName(let n): return Array(n.utf8)
        case .solicitedServices128(let uuids), .services128(let uuids): return uuids.flatMap { $0.fullLittleEndian }
        }
    }

    /// Length, type, value.
    public var bytes: [UInt8] { AdvertisingData.structure(type, value) }
}

/// What the head unit advertises: the advertising data and the scan
/// response, each at most 31 octets (legacy PDUs).
public struct AdvertisingPayload: Equatable {
    public static let maxLength = 31

    public private(set) var advertisingData: [UInt8]
    public private(set) var scanResponse: [UInt8]

    /// Nil when either part exceeds 31 octets.
    public init?(advertising: [ADStructure], scanResponse: [ADStructure]) {
        let a = advertising.flatMap { $0.bytes }
        let s = scanResponse.flatMap { $0.bytes }
        guard a.count <= AdvertisingPayload.maxLength, s.count <= AdvertisingPayload.maxLength else { return nil }
        advertisingData = a
        self.scanResponse = s
    }

    /// An accessory that iOS lists in Settings → Bluetooth. The advertising
    /// data carries the flags, the solicited services that fit (in the
    /// order given: ANCS first, so it is always there; a second 128-bit
    /// UUID never fits beside it) and the name, shortened to what is left;
    /// the scan response carries the complete name and the services the
    /// advertising data had no room for. iOS asks for the scan response of
    /// every accessory it lists, so the full name reaches the Settings list.
    public static func accessory(name: String, soliciting services: [BluetoothUUID]) -> AdvertisingPayload {
        var advertising: [ADStructure] = [.flags(ADStructure.generalDiscoverableLEOnly)]
        var room = maxLength - 3
        var inAdvertising: [BluetoothUUID] = []
        var left: [BluetoothUUID] = []
        for uuid in services {
            let cost = 16 + (inAdvertising.isEmpty ? 2 : 0)
            if left.isEmpty && cost <= room {
                inAdvertising.append(uuid)
                room -= cost
            } else {
                left.append(uuid)
            }
        }
        if !inAdvertising.isEmpty { advertising.append(.solicitedServices128(inAdvertising)) }

        var response: [ADStructure] = []
        var responseRoom = maxLength
        let nameBytes = name.utf8.count
        if nameBytes + 2 <= room {
            if !name.isEmpty { advertising.append(.completeName(name)) }
        } else {
            if room > 2 { advertising.append(.shortenedName(prefix(of: name, maxBytes: room - 2))) }
            if nameBytes + 2 <= responseRoom {
                response.append(.completeName(name))
            } else {
                response.append(.shortenedName(prefix(of: name, maxBytes: responseRoom - 2)))
            }
            responseRoom -= response[0].bytes.count
        }
        var extra: [BluetoothUUID] = []
        for uuid in left where 2 + 16 * (extra.count + 1) <= responseRoom { extra.append(uuid) }
        if !extra.isEmpty { response.append(.solicitedServices128(extra)) }
        // Both parts are built within 31 octets above.
        return AdvertisingPayload(advertising: advertising, scanResponse: response)!
    }

    /// The advertisement iOS's accessory picker finds a NotifBridge receiver
    /// by (docs/NOTIFBRIDGE.md): the flags and `service` in the advertising
    /// data, and `name` followed by " NotifBdg" as the complete name in the
    /// scan response, `name` shortened so that the marker always fits.
    public static func notifBridge(name: String, service: BluetoothUUID) -> AdvertisingPayload {
        let marker = " NotifBdg"
        let room = maxLength - 2 - marker.utf8.count
        // Both parts are 21 and at most 31 octets.
        return AdvertisingPayload(advertising: [.flags(ADStructure.generalDiscoverableLEOnly), .services128([service])],
                                  scanResponse: [.completeName(prefix(of: name, maxBytes: room) + marker)])!
    }

    /// The longest prefix of `name` that fits `maxBytes` of UTF-8 without
    /// cutting a character in half.
    static func prefix(of name: String, maxBytes: Int) -> String {
        var out = ""
        var used = 0
        for character in name {
            let size = String(character).utf8.count
            if used + size > maxBytes { break }
            out.append(character)
            used += size
        }
        return out
    }
}
