import AMS
import ANCS
import BluetoothCore

/// A line typed on the diagnostics console, parsed. Parsing is separate from
/// doing, so that every command and every wrong argument is tested (and
/// fuzzed) without a head unit.
public enum ConsoleCommand: Equatable {
    case help
    /// Link, phone, address, security, MTU, ANCS/AMS, counters, uptime, memory.
    case status
    case scan
    case connect
    case disconnect
    case unpair
    /// Pairing mode for a while: any iPhone may pair from its Settings.
    case pair
    /// The remembered phones and their bonds.
    case bonds
    /// Forget the remembered phone with this SERVER NAME (and its bond).
    case forget(String)
    /// The notifications held now.
    case notifications
    case nowPlaying
    /// PerformNotificationAction on a notification the phone offered it for.
    case action(NotificationUID, ActionID)
    /// An AMS remote command.
    case media(RemoteCommandID)
    case log(LogLevel)
    /// Start writing every HCI packet to this btsnoop file.
    case traceOn(String)
    /// The same, keeping the link keys and key seeds in clear (dangerous).
    case traceOnKeepingKeys(String)
    case traceOff
    /// Write the screen as it is now to this PNG file.
    case screenshot(String)
    /// Print the effective configuration.
    case config
    case version
    case reboot
    /// Install the signed update bundle at this path (a USB stick's file)
    /// into the inactive slot and reboot into it on trial (docs/UPDATES.md).
    case update(String)
    /// The GhostDrop code on screen matches the phone's ("Codes match").
    case confirm
    /// "Cancel": the code does not match, or stop the transfer running.
    case cancel
    /// A blank line: nothing to do, no answer.
    case empty
    /// Unknown command or wrong arguments: the text is the line to answer with.
    case invalid(String)

    /// The media commands the console offers (the ones on the head unit's keys).
    public static let mediaCommands: [RemoteCommandID] = [.play, .pause, .togglePlayPause, .nextTrack, .previousTrack,
                                                          .volumeUp, .volumeDown]

    /// SERVER NAMEs are 1 to 32 bytes of UTF-8 (docs/PROTOCOL.md §1).
    public static let maximumServerNameBytes = 32
    /// PATH_MAX less the installer's own path and a margin.
    public static let maximumPathBytes = 1024

    public static let usage = """
    commands:
      help                         this list
      status                       link, phone, security, MTU, ANCS/AMS, counters, uptime, memory
      scan                         discover a phone (or look for the remembered one)
      connect                      same as scan
      disconnect                   drop the link; the phone stays remembered
      unpair                       forget the phone (tells it first when connected)
      pair                         pairing mode: any iPhone may pair from Settings -> Bluetooth
      bonds                        the remembered phone and the stored bonds
      forget NAME                  delete the bond of the phone with this SERVER NAME
      notifications                the notifications on the head unit
      now-playing                  what the phone is playing
      action UID positive|negative answer a notification (UID as notifications lists it)
      media COMMAND                play | pause | toggle | next | previous | volume-up | volume-down
      log LEVEL                    error | warn | info | debug | trace
      trace on FILE | trace off    write every HCI packet to FILE (btsnoop, 0600, keys zeroed)
      trace on FILE keys           the same with link keys and key seeds in clear: DANGEROUS
      screenshot FILE.png          save the screen as it is now
      config                       the configuration in effect
      version                      firmware version
      reboot                       restart the head unit
      update PATH                  install a signed update bundle (USB stick) and reboot into it on trial
      confirm                      the GhostDrop code on screen matches the phone's
      cancel                       the GhostDrop code does not match, or stop the transfer
    """

    /// One line per command with arguments, for answers to wrong arguments.
    static let usageLines: [String: String] = [
        "forget": "usage: forget NAME",
        "action": "usage: action UID positive|negative",
        "media": "usage: media play|pause|toggle|next|previous|volume-up|volume-down",
        "log": "usage: log error|warn|info|debug|trace",
        "trace": "usage: trace on FILE [keys] | trace off",
        "screenshot": "usage: screenshot FILE.png",
        "update": "usage: update PATH (a signed update bundle, e.g. /media/usb/headunit-qemu-virt.hubundle)",
    ]

    public init(line: String) {
        let words = line.split(whereSeparator: ConsoleCommand.isBlank).map(String.init)
        guard let first = words.first else {
            self = .empty
            return
        }
        let verb = first.lowercased()
        let rest = Array(words.dropFirst())
        func bare(_ c: ConsoleCommand) -> ConsoleCommand {
            rest.isEmpty ? c : .invalid("usage: \(verb) (takes no arguments)")
        }
        func wrong() -> ConsoleCommand { .invalid(ConsoleCommand.usageLines[verb] ?? "usage: \(verb)") }

        switch verb {
        case "help", "?": self = bare(.help)
        case "status": self = bare(.status)
        case "scan": self = bare(.scan)
        case "connect": self = bare(.connect)
        case "disconnect": self = bare(.disconnect)
        case "unpair": self = bare(.unpair)
        case "pair": self = bare(.pair)
        case "bonds": self = bare(.bonds)
        case "notifications": self = bare(.notifications)
        case "now-playing": self = bare(.nowPlaying)
        case "config": self = bare(.config)
        case "version": self = bare(.version)
        case "reboot": self = bare(.reboot)
        case "confirm": self = bare(.confirm)
        case "cancel": self = bare(.cancel)
        case "forget":
            // A SERVER NAME may hold spaces: it is the rest of the line.
            let name = ConsoleCommand.rest(of: line, after: first)
            let size = name.utf8.count
            self = size >= 1 && size <= ConsoleCommand.maximumServerNameBytes ? .forget(name) : wrong()
        case "action":
            if rest.count == 2, let uid = ConsoleCommand.parseUID(rest[0]), let id = ConsoleCommand.parseActionID(rest[1]) {
                self = .action(NotificationUID(uid), id)
            } else {
                self = wrong()
            }
        case "media":
            if rest.count == 1, let c = RemoteCommandID(name: rest[0].lowercased()), ConsoleCommand.mediaCommands.contains(c) {
                self = .media(c)
            } else {
                self = wrong()
            }
        case "log":
            if rest.count == 1, let level = LogLevel(name: rest[0].lowercased()) {
                self = .log(level)
            } else {
                self = wrong()
            }
        case "trace":
            if rest.count == 2, rest[0].lowercased() == "on" {
                self = .traceOn(rest[1])
            } else if rest.count == 3, rest[0].lowercased() == "on", rest[2].lowercased() == "keys" {
                self = .traceOnKeepingKeys(rest[1])
            } else if rest.count == 1, rest[0].lowercased() == "off" {
                self = .traceOff
            } else {
                self = wrong()
            }
        case "update":
            // A path may hold spaces (a USB stick's file name): the rest of the line.
            let path = ConsoleCommand.rest(of: line, after: first)
            self = path.hasPrefix("/") && path.utf8.count <= ConsoleCommand.maximumPathBytes ? .update(path) : wrong()
        case "screenshot":
            if rest.count == 1, rest[0].count > 4, rest[0].lowercased().hasSuffix(".png") {
                self = .screenshot(rest[0])
            } else {
                self = wrong()
            }
        default:
            self = .invalid("unknown command '\(first)'; type help")
        }
    }

    private static func isBlank(_ c: Character) -> Bool { c == " " || c == "\t" || c == "\r" || c == "\n" }

    /// The line after its first word, without surrounding blanks.
    private static func rest(of line: String, after word: String) -> String {
        var s = Substring(line).drop(while: isBlank)
        s = s.dropFirst(word.count)
        s = s.drop(while: isBlank)
        while let last = s.last, isBlank(last) { s = s.dropLast() }
        return String(s)
    }

    /// Decimal, as `notifications` prints it, or 0x-hexadecimal.
    private static func parseUID(_ text: String) -> UInt32? {
        let lower = text.lowercased()
        if lower.hasPrefix("0x") { return UInt32(lower.dropFirst(2), radix: 16) }
        return UInt32(lower)
    }

    private static func parseActionID(_ text: String) -> ActionID? {
        switch text.lowercased() {
        case "positive": return .positive
        case "negative": return .negative
        default: return nil
        }
    }
}
