import BluetoothCore
import GATT
import NavigationNotifier

/// Carries out the pairing routine's GATT requests on one link, on the
/// NavigationNotifier service bound once (docs/PROTOCOL.md §1): each
/// outcome goes back as a `RemoteResult`.
final class NavigationNotifierClient {
    private let service: GATTServiceBinding

    init(service: GATTServiceBinding) {
        self.service = service
    }

    func readServerName(_ done: @escaping (RemoteResult) -> Void) {
        service.read(NavigationNotifierUUIDs.serverName, done)
    }

    func readPairedClientName(_ done: @escaping (RemoteResult) -> Void) {
        service.read(NavigationNotifierUUIDs.pairedClientName, done)
    }

    func writePairedClientName(_ name: String, _ done: @escaping (RemoteResult) -> Void) {
        service.write(NavigationNotifierUUIDs.pairedClientName, value: Array(name.utf8), done)
    }

    func subscribePairedClientName(onValue: @escaping ([UInt8]) -> Void, _ done: @escaping (RemoteResult) -> Void) {
        service.subscribe(NavigationNotifierUUIDs.pairedClientName, onValue: onValue, done)
    }
}
