import ATT
import BluetoothCore
import GATT
import Pairing

/// Carries out the pairing routine's GATT requests on one link: finds the
/// NavigationNotifier service and its two characteristics once, then reads,
/// writes and subscribes, and reports each outcome back as a `RemoteResult`.
final class NavigationNotifierClient {
    private struct Handles {
        var serverName: AttributeHandle
        var pairedClientName: AttributeHandle
        var pairedClientNameCCCD: AttributeHandle?
    }

    private let bearer: GATTBearer
    private var handles: Handles?
    private var waiting: [(Result<Handles, GATTError>) -> Void] = []
    private var discovering = false

    init(bearer: GATTBearer) {
        self.bearer = bearer
    }

    func readServerName(_ done: @escaping (RemoteResult) -> Void) {
        withHandles(done) { h in self.bearer.read(h.serverName) { done(remote($0)) } }
    }

    func readPairedClientName(_ done: @escaping (RemoteResult) -> Void) {
        withHandles(done) { h in self.bearer.read(h.pairedClientName) { done(remote($0)) } }
    }

    func writePairedClientName(_ name: String, _ done: @escaping (RemoteResult) -> Void) {
        withHandles(done) { h in
            self.bearer.write(h.pairedClientName, value: Array(name.utf8)) { done(remote($0)) }
        }
    }

    func subscribePairedClientName(onValue: @escaping ([UInt8]) -> Void, _ done: @escaping (RemoteResult) -> Void) {
        withHandles(done) { h in
            guard let cccd = h.pairedClientNameCCCD else {
                Log.warning("pairing", "PAIRED CLIENT NAME has no client configuration descriptor")
                done(.failed)
                return
            }
            self.bearer.subscribe(valueHandle: h.pairedClientName, cccd: cccd, onValue: onValue) { done(remote($0)) }
        }
    }

    private func withHandles(_ fail: @escaping (RemoteResult) -> Void, _ body: @escaping (Handles) -> Void) {
        if let h = handles {
            body(h)
            return
        }
        waiting.append { result in
            switch result {
            case .success(let h): body(h)
            case .failure(let e): fail(remote(e))
            }
        }
        guard !discovering else { return }
        discovering = true
        discover { [self] result in
            discovering = false
            if case .success(let h) = result { handles = h }
            let callbacks = waiting
            waiting = []
            for callback in callbacks { callback(result) }
        }
    }

    private func discover(_ done: @escaping (Result<Handles, GATTError>) -> Void) {
        ServiceDiscovery.discover(NavigationNotifierUUIDs.service, on: bearer) { outcome in
            switch outcome {
            case .found(let found):
                guard let name = found[NavigationNotifierUUIDs.serverName],
                      let paired = found[NavigationNotifierUUIDs.pairedClientName] else {
                    Log.info("pairing", "NavigationNotifier service lacks its characteristics")
                    done(.failure(.att(.attributeNotFound, handle: AttributeHandle(0))))
                    return
                }
                done(.success(Handles(serverName: name.value, pairedClientName: paired.value, pairedClientNameCCCD: paired.cccd)))
            case .absent:
                Log.info("pairing", "no NavigationNotifier service on this phone")
                done(.failure(.att(.attributeNotFound, handle: AttributeHandle(0))))
            case .failed(let error):
                Log.info("pairing", "NavigationNotifier service discovery failed: \(error)")
                done(.failure(error))
            }
        }
    }
}

/// Maps GATT outcomes to what the pairing rules need to know.
func remote(_ result: Result<[UInt8], GATTError>) -> RemoteResult {
    switch result {
    case .success(let bytes): return .value(bytes)
    case .failure(let error): return remote(error)
    }
}

func remote(_ result: Result<Void, GATTError>) -> RemoteResult {
    switch result {
    case .success: return .done
    case .failure(let error): return remote(error)
    }
}

func remote(_ error: GATTError) -> RemoteResult {
    if let code = error.attErrorCode { return .attError(code.rawValue) }
    return .failed
}
