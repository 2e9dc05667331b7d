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

/// One advertising payload: the advertising data and the scan response,
/// each at most 31 octets (legacy PDUs).
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

    /// The AD structure that carries `name` in `room` octets: the complete
    /// name when it fits, else its longest prefix as the shortened name
    /// (Core Supplement Part A 1.2: a shortened name is the beginning of
    /// the complete one); nil when not even one character fits.
    public static func nameStructure(_ name: String, room: Int) -> ADStructure? {
        if name.utf8.count + 2 <= room { return name.isEmpty ? nil : .completeName(name) }
        let short = prefix(of: name, maxBytes: room - 2)
        return short.isEmpty ? nil : .shortenedName(short)
    }

    /// The head unit's payloads share one layout, so that each names the
    /// head unit once and the same way: the advertising data holds the
    /// flags and `advertised`; the scan response holds `answered`, then
    /// the name (complete, or shortened to what is left), then whichever
    /// of `solicitedIfRoom` still fit. The name is in the scan response
    /// alone: a scanner never sees a shortened name in one report and the
    /// complete one in the next (iOS's lists scan actively, so they have
    /// the scan response).
    static func make(name: String, advertised: ADStructure?, answered: [ADStructure] = [],
                     solicitedIfRoom: [BluetoothUUID] = []) -> AdvertisingPayload {
        var response = answered
        var room = maxLength - answered.reduce(0) { $0 + $1.bytes.count }
        if let named = nameStructure(name, room: room) {
            response.append(named)
            room -= named.bytes.count
        }
        var extra: [BluetoothUUID] = []
        for uuid in solicitedIfRoom where 2 + 16 * (extra.count + 1) <= room { extra.append(uuid) }
        if !extra.isEmpty { response.append(.solicitedServices128(extra)) }
        // Callers pass at most one 128-bit UUID per part: both parts fit.
        let advertising: [ADStructure] = [.flags(ADStructure.generalDiscoverableLEOnly)] + (advertised.map { [$0] } ?? [])
        return AdvertisingPayload(advertising: advertising, scanResponse: response)!
    }

    /// An accessory that iOS lists in Settings → Bluetooth: the first of
    /// `services` (ANCS) solicited in the advertising data (flags 3 + 18
    /// octets; a second 128-bit UUID never fits beside it), the name and
    /// the other solicited services that fit in the scan response.
    public static func accessory(name: String, soliciting services: [BluetoothUUID]) -> AdvertisingPayload {
        make(name: name, advertised: services.first.map { .solicitedServices128([$0]) },
             solicitedIfRoom: Array(services.dropFirst()))
    }

    /// What an app that scans for `service` finds the head unit by: iOS's
    /// accessory picker for NotifBridge (docs/NOTIFBRIDGE.md), GhostDrop's
    /// sender (docs/GHOSTDROP.md). The flags and `service` as the complete
    /// list of 128-bit services in the advertising data, where a scan
    /// filter on the service matches the first report, scan response or
    /// not; the name in the scan response.
    public static func offering(_ service: BluetoothUUID, name: String) -> AdvertisingPayload {
        make(name: name, advertised: .services128([service]))
    }

    /// This payload with `advertisingData` instead of its own and the same
    /// scan response, so the same name (`Advertisement.extra` taking its turn).
    func advertising(_ advertisingData: [UInt8]) -> AdvertisingPayload {
        var payload = self
        payload.advertisingData = advertisingData
        return payload
    }

    /// Both in one payload, for a controller with a single advertising set
    /// (or legacy advertising only). The budget, 31 + 31 octets: flags (3)
    /// and the first solicited service (18) fill 21 of the advertising
    /// data, and 10 left hold no other 128-bit UUID (18); the scan response
    /// carries `service` (18) and the name in the 13 octets left: 11 bytes
    /// of name, shortened (AD type 0x08) when longer. The other solicited
    /// services (AMS) do not fit.
    public static func combined(name: String, soliciting services: [BluetoothUUID], service: BluetoothUUID) -> AdvertisingPayload {
        make(name: name, advertised: services.first.map { .solicitedServices128([$0]) }, answered: [.services128([service])])
    }

    /// The longest prefix of `name` that fits `maxBytes` of UTF-8 without
    /// cutting a character in half.
    public static func prefix(of name: String, maxBytes: Int) -> String {
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

/// What the head unit advertises, in the shapes a controller may need:
/// one payload per advertising set where the controller has enough sets,
/// and everything in one payload where it has one set or legacy
/// advertising only. Every payload carries the same name.
///
/// `extra` (GhostDrop's) is a payload that no combined payload has room
/// for (a second 128-bit UUID in the advertising data): it gets a set of
/// its own where the controller has one more set than `sets` needs;
/// otherwise its advertising data takes turns with the first payload's
/// on that payload's set (`Advertiser.extraTurnMilliseconds`), beside the
/// first payload's scan response, so the name a scanner hears never
/// changes.
public struct Advertisement: Equatable {
    public let sets: [AdvertisingPayload]
    public let combined: AdvertisingPayload
    public let extra: AdvertisingPayload?

    public init(sets: [AdvertisingPayload], combined: AdvertisingPayload, extra: AdvertisingPayload? = nil) {
        self.sets = sets.isEmpty ? [combined] : sets
        self.combined = combined
        self.extra = extra
    }

    /// One payload, whatever the controller.
    public init(_ payload: AdvertisingPayload, extra: AdvertisingPayload? = nil) {
        self.init(sets: [payload], combined: payload, extra: extra)
    }

    /// What goes on `count` advertising sets (legacy advertising: 1): the
    /// payloads, one per set, and the advertising data that takes turns
    /// with the first payload's (nil: `extra` has a set, or there is none).
    public func shape(sets count: Int) -> (payloads: [AdvertisingPayload], turn: [UInt8]?) {
        if let extra, count >= sets.count + 1 { return (sets + [extra], nil) }
        return (count >= sets.count ? sets : [combined], extra?.advertisingData)
    }
}
