/// A small command-line parser: `verb --name value --flag`. The firmware
/// has no Foundation or argument-parsing package, and needs little.
public struct Arguments {
    public var verb: String?
    public var options: [String: String] = [:]
    public var flags: Set<String> = []
    public var positional: [String] = []

    public struct UsageError: Error, CustomStringConvertible {
        public var description: String
    }

    /// `valued` names the options that take a value; others are flags.
    public init(_ argv: [String], valued: Set<String>) throws(UsageError) {
        var i = 0
        if let first = argv.first, !first.hasPrefix("-") {
            verb = first
            i = 1
        }
        while i < argv.count {
            let arg = argv[i]
            if arg.hasPrefix("--") {
                let name = String(arg.dropFirst(2))
                if valued.contains(name) {
                    guard i + 1 < argv.count else { throw UsageError(description: "--\(name) needs a value") }
                    options[name] = argv[i + 1]
                    i += 2
                    continue
                }
                flags.insert(name)
            } else {
                positional.append(arg)
            }
            i += 1
        }
    }

    public func int(_ name: String, default value: Int) throws(UsageError) -> Int {
        guard let text = options[name] else { return value }
        guard let n = Int(text), n >= 0 else { throw UsageError(description: "--\(name) wants a whole number, not '\(text)'") }
        return n
    }
}
