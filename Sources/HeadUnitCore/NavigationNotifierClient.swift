import ATT
import BluetoothCore
import GATT
import NavigationNotifier

/// What the NavigationNotifier service on the phone answered, for the
/// pairing routine (docs/PROTOCOL.md §1).
enum NavigationNotifierReply {
    case serverName(RemoteResult)
    case pairedClientName(RemoteResult)
    case pairedClientNameWritten(RemoteResult)
    case pairedClientNameSubscribed(RemoteResult)
    /// The phone notified a new PAIRED CLIENT NAME.
    case pairedClientNameChanged([UInt8])
}

/// Carries out the pairing routine's GATT requests on one link, on the
/// NavigationNotifier service bound once: it remembers what each request
/// id was for, and turns the bearer's answers into replies.
final class NavigationNotifierClient {
    let service: GATTServiceBinding

    private enum Request {
        case readServerName, readPairedClientName, writePairedClientName, subscribePairedClientName
    }
    private var pending: [GATTRequestID: Request] = [:]

    init(service: GATTServiceBinding) {
        self.service = service
    }

    func readServerName() {
        pending[service.read(NavigationNotifierUUIDs.serverName)] = .readServerName
    }

    func readPairedClientName() {
        pending[service.read(NavigationNotifierUUIDs.pairedClientName)] = .readPairedClientName
    }

    func writePairedClientName(_ name: String) {
        pending[service.write(NavigationNotifierUUIDs.pairedClientName, value: Array(name.utf8))] = .writePairedClientName
    }

    func subscribePairedClientName() {
        pending[service.subscribe(NavigationNotifierUUIDs.pairedClientName)] = .subscribePairedClientName
    }

    /// The reply to one of its requests; nil when `id` is not one.
    func completed(_ id: GATTRequestID, _ result: GATTClientResult) -> NavigationNotifierReply? {
        guard !pending.isEmpty, let request = pending.removeValue(forKey: id) else { return nil }
        let outcome = RemoteResult(result)
        switch request {
        case .readServerName: return .serverName(outcome)
        case .readPairedClientName: return .pairedClientName(outcome)
        case .writePairedClientName: return .pairedClientNameWritten(outcome)
        case .subscribePairedClientName: return .pairedClientNameSubscribed(outcome)
        }
    }

    /// A value the phone notified, when it is PAIRED CLIENT NAME's.
    func valueReceived(at valueHandle: AttributeHandle, _ value: [UInt8]) -> NavigationNotifierReply? {
        service.characteristic(notifiedAt: valueHandle) == NavigationNotifierUUIDs.pairedClientName
            ? .pairedClientNameChanged(value) : nil
    }
}
