import BluetoothCore
@testable import HCI
@testable import HeadUnitCore

/// Advertising data and scan responses as any advertiser nearby may send
/// them, parsed on their own, carried in legacy and extended Advertising
/// Report events, and merged per advertiser the way a scan does.
enum AdvertisingTarget {
    static let target = FuzzTarget(name: "advertising", run: run, seeds: seeds)

    static let advertiser = BluetoothAddress("5C:F7:E6:D5:C4:B3", kind: .random)!

    static func run(_ data: [UInt8]) {
        guard let split = data.first else { return }
        let body = Array(data.dropFirst())
        let cut = min(body.count, Int(split))
        let advertising = Array(body[..<cut]), scanResponse = Array(body[cut...])

        var merged = AdvertisingData(advertising)
        merged.merge(scanResponse)
        invariant(Set(merged.serviceUUIDs).count == merged.serviceUUIDs.count, "a service UUID listed twice")
        _ = merged.name?.utf8.count

        // The same bytes inside HCI events, when they fit one.
        let legacy = [UInt8(2)] + report(0x00, advertising) + report(0x04, scanResponse)
        var reports = carried(in: LEMetaEvent.subeventAdvertisingReport, legacy, advertising, scanResponse) ?? []
        let extended = [UInt8(2)] + extendedReport(0x13, advertising) + extendedReport(0x1B, scanResponse)
        if let parsed = carried(in: LEMetaEvent.subeventExtendedAdvertisingReport, extended, advertising, scanResponse) {
            invariant(parsed.first?.isConnectable == true && parsed.last?.kind == .scanResponse, "report kinds altered")
        }
        if reports.isEmpty {
            reports = [AdvertisingReport(kind: .connectableUndirected, address: advertiser, rssi: -60, data: advertising),
                       AdvertisingReport(kind: .scanResponse, address: advertiser, rssi: -61, data: scanResponse)]
        }
        var advertisers = Advertisers()
        for report in reports { _ = advertisers.take(report) }
        guard let entry = advertisers.entries[advertiser] else {
            invariant(false, "the advertiser was not recorded")
            return
        }
        invariant(entry.data == merged, "a scan merges advertising data differently from AdvertisingData")
        _ = Advertisers.describe(entry)
    }

    /// The reports of an LE Meta event with these parameters, checked to
    /// carry the two data fields unaltered; nil when they do not fit an event.
    static func carried(in subevent: UInt8, _ parameters: [UInt8], _ first: [UInt8], _ second: [UInt8]) -> [AdvertisingReport]? {
        guard 2 + parameters.count <= 255 else { return nil }
        guard let event = HCIEvent(body: [HCIEvent.codeLEMeta, UInt8(1 + parameters.count), subevent] + parameters) else {
            invariant(false, "a well-formed Advertising Report \(subevent) was refused")
            return nil
        }
        guard case .le(.advertisingReports(let parsed)) = event else {
            invariant(false, "Advertising Report \(subevent) parsed as something else")
            return nil
        }
        invariant(parsed.map { $0.data } == [first, second], "report data altered")
        return parsed
    }

    static func report(_ type: UInt8, _ data: [UInt8]) -> [UInt8] {
        [type, advertiser.kind.rawValue] + advertiser.littleEndianBytes + [UInt8(truncatingIfNeeded: data.count)] + data + [0xC4]
    }

    static func extendedReport(_ eventType: UInt16, _ data: [UInt8]) -> [UInt8] {
        [UInt8(eventType & 0xFF), UInt8(eventType >> 8), advertiser.kind.rawValue] + advertiser.littleEndianBytes
            + [0x01, 0x00, 0xFF, 0x7F, 0xC4, 0x00, 0x00] + [UInt8](repeating: 0, count: 7)
            + [UInt8(truncatingIfNeeded: data.count)] + data
    }

    static func seeds() -> [(String, [UInt8])] {
        func ad(_ type: UInt8, _ value: [UInt8]) -> [UInt8] { AdvertisingData.structure(type, value) }
        let flags = ad(0x01, [0x06])
        let nn = ad(0x07, H4Target.nnServiceLE)
        let name = ad(0x09, Array("Anna-iPhone-7F3A".utf8))
        func seed(_ advertising: [UInt8], _ scan: [UInt8]) -> [UInt8] { [UInt8(advertising.count)] + advertising + scan }
        return [
            ("phone", seed(flags + nn, name)),
            ("iphone-manufacturer", seed(flags + ad(0xFF, [0x4C, 0x00, 0x10, 0x05, 0x01, 0x18, 0x44, 0x33, 0x22]) + ad(0x0A, [0x0C]), ad(0x08, Array("iPh".utf8)))),
            ("uuid-lists", seed(ad(0x02, [0x0F, 0x18, 0x0A, 0x18]) + ad(0x05, [0x01, 0x02, 0x03, 0x04]) + ad(0x06, H4Target.nnServiceLE), ad(0x03, [0x0F, 0x18]))),
            ("appearance", seed(ad(0x19, [0xC1, 0x03]) + name, [])),
            ("padding", seed(flags + [0, 0, 0, 0], [])),
            ("zero-length-in-middle", seed(flags + [0x00] + name, [])),
            ("overrun", seed(flags + [0x1F, 0x09, 0x41], [])),
            ("bad-uuid-length", seed(ad(0x03, [0x0F, 0x18, 0x0A]), ad(0x07, [1, 2, 3]))),
            ("invalid-utf8-name", seed(ad(0x09, [0xC3, 0x28, 0xFF, 0xE2, 0x82]), [])),
            ("empty-fields", seed([0x01, 0x01, 0x01, 0x0A, 0x01, 0x19, 0x01, 0xFF], [])),
        ]
    }
}
