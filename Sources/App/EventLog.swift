import BluetoothCore
import NavigationNotifier
import Platform

/// The `--events` automation log: one JSON object per line,
/// `{"t_ms": N, "event": NAME, ...}`, `t_ms` counted from start-up.
/// Field names and values are a stable contract (see the README).
final class EventLog {
    private let file: LineFile?
    private let start: Instant

    init(path: String?) {
        start = Clock.now()
        if let path {
            do { file = try LineFile(path: path) } catch {
                Log.error("events", "\(error); no event log")
                file = nil
            }
        } else {
            file = nil
        }
    }

    /// Starts an event line with its time and name; `fill` adds the fields.
    func emit(_ name: String, _ fill: (inout JSONLine) -> Void = { _ in }) {
        guard let file else { return }
        var j = JSONLine()
        j.field("t_ms", Clock.now().millisecondsSince(start))
        j.field("event", name)
        fill(&j)
        file.write(utf8: j.utf8Line)
    }

    func state(_ s: PairingState) {
        emit("state") { j in
            j.field("state", s.eventName)
            j.field("server", s.server)
        }
    }

    func error(_ what: String, _ detail: String) {
        emit("error") { j in
            j.field("what", what)
            j.field("detail", detail)
        }
    }
}
