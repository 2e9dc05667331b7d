/// A line typed on the diagnostics console, parsed. Parsing is separate from
/// doing so that it can be tested (and fuzzed) on its own.
enum ConsoleCommand: Equatable {
    case help
    case status
    case scan
    case connect
    case disconnect
    case unpair
    case version
    case log(String)
    case empty
    case invalid(String)

    static let usage = """
    commands:
      help                 this list
      status               link, phone, pairing state
      scan                 discover a phone (or reconnect to the remembered one)
      connect              same as scan
      disconnect           drop the link; the phone stays remembered
      unpair               forget the phone (tells it first when connected)
      log LEVEL            error | warn | info | debug | trace
      version              firmware version
    """

    init(line: String) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
        guard let verb = words.first else {
            self = .empty
            return
        }
        let rest = Array(words.dropFirst())
        func noArguments(_ c: ConsoleCommand) -> ConsoleCommand {
            rest.isEmpty ? c : .invalid("usage: \(verb)")
        }
        switch verb {
        case "help", "?": self = noArguments(.help)
        case "status": self = noArguments(.status)
        case "scan": self = noArguments(.scan)
        case "connect": self = noArguments(.connect)
        case "disconnect": self = noArguments(.disconnect)
        case "unpair": self = noArguments(.unpair)
        case "version": self = noArguments(.version)
        case "log":
            if rest.count == 1, ["error", "warn", "warning", "info", "debug", "trace"].contains(rest[0]) {
                self = .log(rest[0])
            } else {
                self = .invalid("usage: log error|warn|info|debug|trace")
            }
        default:
            self = .invalid("unknown command '\(verb)'; type help")
        }
    }
}
