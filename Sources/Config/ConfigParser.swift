/// Reads the configuration file format (docs/CONFIGURATION.md):
///
///     # comment
///     [section]
///     key = value          # a comment after a blank
///     key = "  quoted  "   # keeps blanks and # signs
///
/// The parser never fails as a whole: whatever is wrong with a line gives
/// one diagnostic naming the file, the line and the key, and that key keeps
/// its default (or the value an earlier line gave it). Binary files, huge
/// files, CRLF or CR line ends, a UTF-8 byte order mark and repeated keys
/// (the last one wins) are all handled.
public enum ConfigParser {
    /// Longer lines are skipped: no key needs them, and it bounds the work.
    public static let maximumLineLength = 1024
    /// A file of garbage would give a diagnostic per line; after this many
    /// one more says that the rest is not shown.
    public static let maximumDiagnostics = 20

    public static func parse(_ bytes: [UInt8], file: String) -> ConfigParseResult {
        var state = ParseState(file: file)
        var data = bytes[...]
        if data.count > HeadUnitConfiguration.maximumFileSize {
            state.report(nil, nil, "larger than \(HeadUnitConfiguration.maximumFileSize / 1024) KiB; only the first "
                         + "\(HeadUnitConfiguration.maximumFileSize / 1024) KiB are read")
            data = data.prefix(HeadUnitConfiguration.maximumFileSize)
            // The last line was cut in two: drop its beginning.
            if let end = data.lastIndex(where: { $0 == 0x0A || $0 == 0x0D }) { data = data[...end] } else { data = [] }
        }
        if data.contains(0) {
            state.report(nil, nil, "a binary file (it holds NUL bytes), not a configuration; every key keeps its default")
            return state.result
        }
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data = data.dropFirst(3) }

        var lineNumber = 1
        var start = data.startIndex
        var index = data.startIndex
        while index < data.endIndex {
            let byte = data[index]
            if byte == 0x0A || byte == 0x0D {
                state.line(data[start..<index], number: lineNumber)
                lineNumber += 1
                // CRLF is one line end.
                if byte == 0x0D, index + 1 < data.endIndex, data[index + 1] == 0x0A { index += 1 }
                start = index + 1
            }
            index += 1
        }
        if start < data.endIndex { state.line(data[start...], number: lineNumber) }
        return state.result
    }
}

/// The parser's progress through one file.
private struct ParseState {
    let file: String
    var configuration = HeadUnitConfiguration()
    var diagnostics: [ConfigDiagnostic] = []
    var keysSet: Set<String> = []
    /// The line that last set each key, for the repeated-key warning.
    var setOnLine: [String: Int] = [:]
    var section: String?
    /// After an unknown or broken section header its keys are skipped
    /// quietly: the header got the diagnostic.
    var skippingSection = false
    var truncatedReport = false

    init(file: String) { self.file = file }

    var result: ConfigParseResult {
        ConfigParseResult(configuration: configuration, diagnostics: diagnostics, keysSet: keysSet)
    }

    mutating func report(_ line: Int?, _ key: String?, _ message: String) {
        if diagnostics.count < ConfigParser.maximumDiagnostics {
            diagnostics.append(ConfigDiagnostic(file: file, line: line, key: key, message: message))
        } else if !truncatedReport {
            truncatedReport = true
            let after = line.map { " after line \($0)" } ?? ""
            diagnostics.append(ConfigDiagnostic(file: file, line: nil, key: nil,
                                                message: "more problems\(after) not shown; is this the right file?"))
        }
    }

    mutating func line(_ bytes: ArraySlice<UInt8>, number: Int) {
        guard bytes.count <= ConfigParser.maximumLineLength else {
            report(number, nil, "line longer than \(ConfigParser.maximumLineLength) bytes; ignored")
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.elementsEqual(bytes) else {
            report(number, nil, "not UTF-8 text; line ignored")
            return
        }
        let trimmed = ConfigValues.trim(Substring(text))
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return }
        if trimmed.hasPrefix("[") {
            sectionHeader(trimmed, number: number)
        } else {
            assignment(trimmed, number: number)
        }
    }

    mutating func sectionHeader(_ text: String, number: Int) {
        let header = ConfigValues.trim(stripComment(Substring(text)))
        section = nil
        skippingSection = true
        guard header.hasSuffix("]"), header.count >= 3 else {
            report(number, nil, "'\(header)' is not a [section] line; the keys after it are ignored")
            return
        }
        let name = normalized(ConfigValues.trim(header.dropFirst().dropLast()))
        guard ConfigKey.sections.contains(name) else {
            var message = "unknown section; its keys are ignored"
            if let guess = closest(name, among: ConfigKey.sections) { message += " (did you mean [\(guess)]?)" }
            report(number, "[\(name)]", message)
            return
        }
        section = name
        skippingSection = false
    }

    mutating func assignment(_ text: String, number: Int) {
        guard let equals = text.firstIndex(of: "=") else {
            report(number, nil, "'\(ConfigValues.trim(stripComment(Substring(text))))' is not a 'key = value' line; ignored")
            return
        }
        let name = normalized(ConfigValues.trim(text[..<equals]))
        guard !name.isEmpty else {
            report(number, nil, "a value without a key; ignored")
            return
        }
        guard let section else {
            if skippingSection { return }
            var message = "key outside a section; ignored"
            if let home = ConfigKey.all.first(where: { $0.name == name }) { message += " (it belongs in [\(home.section)])" }
            report(number, name, message)
            return
        }
        let path = section + "." + name
        guard let key = ConfigKey.all.first(where: { $0.section == section && $0.name == name }) else {
            var message = "unknown key; ignored"
            let here = ConfigKey.all.filter { $0.section == section }.map { $0.name }
            if let guess = closest(name, among: here) {
                message += " (did you mean \(guess)?)"
            } else if let home = ConfigKey.all.first(where: { $0.name == name }) {
                message += " (it belongs in [\(home.section)])"
            }
            report(number, path, message)
            return
        }
        guard let value = value(text[text.index(after: equals)...]) else {
            report(number, path, "a quote is not closed; using \(shown(key.render(configuration)))")
            return
        }
        var candidate = configuration
        if let problem = key.apply(value, &candidate) {
            report(number, path, "\(problem); using \(shown(key.render(configuration)))")
            return
        }
        configuration = candidate
        keysSet.insert(path)
        if let earlier = setOnLine[path] {
            report(number, path, "also set on line \(earlier); this later line wins")
        }
        setOnLine[path] = number
    }

    /// The value after `=`: quoted text as it stands, else up to a comment,
    /// without surrounding blanks. nil for an unclosed quote.
    func value(_ raw: Substring) -> String? {
        let text = Substring(ConfigValues.trim(raw))
        if text.hasPrefix("\"") {
            // The closing quote is the first one followed by nothing but an
            // optional comment, so the value itself may hold quotes.
            let inner = text.dropFirst()
            var index = inner.startIndex
            while index < inner.endIndex {
                if inner[index] == "\"" {
                    let after = inner[inner.index(after: index)...]
                    let rest = ConfigValues.trim(after)
                    if rest.isEmpty || (rest.hasPrefix("#") && (after.first == " " || after.first == "\t")) {
                        return String(inner[..<index])
                    }
                }
                index = inner.index(after: index)
            }
            return nil
        }
        return ConfigValues.trim(stripComment(text))
    }

    /// Cuts `# comment` where `#` follows a blank (so `png:/tmp/a#b` stays whole).
    func stripComment(_ text: Substring) -> Substring {
        var previousBlank = false
        var index = text.startIndex
        while index < text.endIndex {
            let c = text[index]
            if c == "#" && previousBlank { return text[..<index] }
            previousBlank = c == " " || c == "\t"
            index = text.index(after: index)
        }
        return text
    }

    /// Keys and sections are case-insensitive, and `_` may stand for `-`.
    func normalized(_ name: String) -> String {
        String(name.lowercased().map { $0 == "_" ? "-" : $0 })
    }

    func shown(_ value: String) -> String { value.isEmpty ? "an empty list" : value }
}

extension HeadUnitConfiguration {
    /// Parses a configuration file's bytes (at most `maximumFileSize + 1`
    /// of them need to be read). Never fails: see `ConfigParser`.
    public static func parse(_ bytes: [UInt8], file: String) -> ConfigParseResult {
        ConfigParser.parse(bytes, file: file)
    }

    /// The configuration in the file format, every key with its value in
    /// effect, for the console's `config` command. Parsing it gives this
    /// configuration back.
    public func render() -> String {
        var out = "# headunit configuration in effect\n"
        for section in ConfigKey.sections {
            out += "\n[\(section)]\n"
            for key in ConfigKey.all where key.section == section {
                let value = ConfigValues.quoteIfNeeded(key.render(self))
                out += value.isEmpty ? "\(key.name) =\n" : "\(key.name) = \(value)\n"
            }
        }
        return out
    }

    /// `section.key` of every key, in file order (for documentation checks).
    public static var keyPaths: [String] { ConfigKey.all.map { $0.path } }
}
