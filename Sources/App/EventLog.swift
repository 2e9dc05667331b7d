import BluetoothCore
import NavigationNotifier
import Platform
import ScreenValues

/// The `--events` automation log: one JSON object per line,
/// `{"t_ms": N, "event": NAME, ...}`, `t_ms` counted from start-up.
/// Field names and values are a stable contract (see the README).
final class EventLog {
    private let file: LineFile?
    private let start: Instant
    /// The lines being built: kept from line to line, so a line allocates
    /// nothing. `batch` holds several (`JSONLine.nextLine`) and writes them
    /// with one write(2) when it ends.
    private var lines = JSONLine()
    /// Lines `lines` holds for the batch.
    private var held = 0
    private var holding = false
    /// Read for each line: `t_ms` is when the line was written (a frame's
    /// after its rendering), which the latency benchmark relies on.
    private let clock: any TimeSource

    convenience init(path: String?) {
        self.init(path: path, clock: SystemClock())
    }

    init(path: String?, clock: any TimeSource) {
        self.clock = clock
        start = clock.now()
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
    /// Names and the words of the fields' enums are the log's own, copied
    /// as they are (`JSONLine.field(_:word:)`); only text that came from
    /// outside (a title, an app's identifier) is checked for escapes.
    func emit(_ name: StaticString, _ fill: (inout JSONLine) -> Void = { _ in }) {
        guard file != nil else { return }
        if held > 0 { lines.nextLine() }
        lines.field("t_ms", clock.now().millisecondsSince(start))
        lines.field("event", word: name)
        fill(&lines)
        held += 1
        if !holding { writeHeld() }
    }

    /// Runs `body` and writes the lines it emitted with one write(2) (a
    /// notification shown and the one it replaced come in one wake-up): one
    /// system call per wake-up instead of one per line, and every line is
    /// in the kernel before the loop sleeps again, as before.
    func batch(_ body: () -> Void) {
        guard !holding else { return body() }
        holding = true
        body()
        holding = false
        writeHeld()
    }

    private func writeHeld() {
        guard held > 0, let file else { return }
        held = 0
        lines.takeLines { file.write(lines: $0) }
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
