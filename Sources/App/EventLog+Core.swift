import AMS
import ANCS
import BluetoothCore
import Guidance
import HeadUnitCore
import Notifications
import SMP

/// The core's events as event-log lines (the README's event table).
extension EventLog {
    func write(_ event: CoreEvent) {
        switch event {
        case .state(let s):
            state(s)
        case .passkey(let passkey):
            emit("passkey") { $0.field("passkey", passkey) }
        case .numericComparison(let value):
            emit("numeric_comparison") { $0.field("value", value) }
        case let .paired(server, method, secureConnections, mitm):
            emit("paired") { j in
                j.field("server", server)
                j.field("method", method.eventName)
                j.field("secure_connections", secureConnections)
                j.field("mitm", mitm)
            }
        case let .encrypted(server, bonded):
            emit("encrypted") { j in
                j.field("server", server)
                j.field("bonded", bonded)
            }
        case .notification(let e):
            emitNotification(e)
        case .nowPlaying(let report):
            emit("now_playing") { j in
                j.field("player", report.player)
                j.field("artist", report.artist)
                j.field("album", report.album)
                j.field("title", report.title)
                j.field("state", report.state?.description)
                j.field("elapsed_s", milliunits: report.elapsedMilliseconds)
                j.field("duration_s", milliunits: report.durationMilliseconds)
            }
        case .error(let e):
            error(e.what, e.detail)
        case .accessory(let report):
            emit("accessory") { j in
                j.field("state", report.state.rawValue)
                j.field("name", report.name)
                j.field("phone", report.phone)
                j.field("pairing_window_s", report.pairingWindowMilliseconds.map { Int($0 / 1000) })
            }
        case .ghostDrop(let report):
            emitGhostDrop(report)
        }
    }

    /// One `ghostdrop` line per step of a transfer (the README's event table).
    private func emitGhostDrop(_ report: GhostDropReport) {
        emit("ghostdrop") { j in
            switch report {
            case .code(let code):
                j.field("state", "code")
                j.field("code", code)
            case .verified:
                j.field("state", "verified")
            case let .incoming(filename, size, mimeType, startOffset):
                j.field("state", "incoming")
                j.field("filename", filename)
                j.field("size", Int(size))
                j.field("mime_type", mimeType)
                j.field("start_offset", Int(startOffset))
            case let .progress(received, total, bytesPerSecond, eta):
                j.field("state", "progress")
                j.field("bytes", Int(received))
                j.field("total", Int(total))
                j.field("bytes_per_s", Int(bytesPerSecond))
                j.field("eta_s", eta.map { Int($0) })
            case let .completed(filename, size):
                j.field("state", "complete")
                j.field("filename", filename)
                j.field("size", Int(size))
            case let .ended(reason, byPeer, resumable):
                j.field("state", "cancelled")
                j.field("reason", reason)
                j.field("by_phone", byPeer)
                j.field("resumable", resumable)
            }
        }
    }

    private func emitNotification(_ e: NotificationEvent) {
        emit("notification") { j in
            j.field("action", word: e.action.word)
            j.field("uid", Int(e.uid.value))
            j.field("app", e.app?.value)
            if let word = e.category.word { j.field("category", word: word) } else { j.field("category", e.category.name) }
            j.field("kind", word: e.kind.word)
            j.field("title", e.title)
            j.field("message", e.message)
            // Forwarded by the NotifBridge app rather than read through ANCS.
            if e.source == .notifBridge { j.field("via", "notifbridge") }
            if let g = e.guidance { j.field("maneuver", word: g.maneuver.eventWord) }
            if let exit = e.guidance?.roundaboutExit { j.field("roundabout_exit", exit) }
            if let metres = e.guidance?.distance?.metres { j.field("distance_m", metres) }
        }
    }
}
