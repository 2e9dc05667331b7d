import BluetoothCore
import HCI
import NavigationNotifier

/// What a scan has seen, one entry per advertiser address, with the
/// advertising data and scan response merged. At most `capacity` entries
/// are kept, the oldest going first: a scan can last for hours near devices
/// that rotate their addresses (or a flood of made-up ones), and an entry
/// is needed only while its advertising and scan response come together.
public struct Advertisers {
    public struct Entry {
        public var address: BluetoothAddress
        public var rssi: Int8
        public var connectable: Bool
        public var data: AdvertisingData

        public var isNavigationNotifierPhone: Bool { data.advertises(NavigationNotifierUUIDs.service) }
    }

    public private(set) var entries: [BluetoothAddress: Entry] = [:]
    public private(set) var order: [BluetoothAddress] = []
    public let capacity: Int

    public static let defaultCapacity = 256

    public init(capacity: Int = Advertisers.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// Takes a report; returns the entry when something worth showing
    /// changed (new advertiser, a name or the service appeared).
    public mutating func take(_ report: AdvertisingReport) -> Entry? {
        if var entry = entries[report.address] {
            let before = (entry.data.name, entry.isNavigationNotifierPhone)
            entry.data.merge(report.data)
            entry.rssi = report.rssi
            if report.isConnectable { entry.connectable = true }
            entries[report.address] = entry
            return before.0 != entry.data.name || before.1 != entry.isNavigationNotifierPhone ? entry : nil
        }
        let entry = Entry(address: report.address, rssi: report.rssi, connectable: report.isConnectable,
                          data: AdvertisingData(report.data))
        if order.count >= capacity {
            let oldest = order.removeFirst()
            entries[oldest] = nil
        }
        entries[report.address] = entry
        order.append(report.address)
        return entry
    }

    public var all: [Entry] { order.compactMap { entries[$0] } }

    public static func describe(_ entry: Entry) -> String {
        var line = entry.address.description
        while line.count < 26 { line += " " }
        line += "\(entry.rssi) dBm"
        if let name = entry.data.name { line += "  \"\(name)\"" }
        if entry.isNavigationNotifierPhone { line += "  [NavigationNotifier server]" }
        if !entry.connectable { line += "  (not connectable)" }
        return line
    }
}
