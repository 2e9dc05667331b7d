/// One problem found in the configuration file, worded for the installer
/// who edits the file on an SD card: where, which key, what is wrong, and
/// what the head unit does instead.
public struct ConfigDiagnostic: Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based; nil for a problem with the whole file.
    public var line: Int?
    /// `section.key` (or `[section]`), when the problem is about one.
    public var key: String?
    public var message: String

    public init(file: String, line: Int?, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `/etc/headunit.conf:7: display.rotation: '45' is not 0, 90, 180 or 270; using 0`
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let key { text += key + ": " }
        return text + message
    }
}

/// What parsing a configuration file gives: always a configuration.
public struct ConfigParseResult {
    public var configuration: HeadUnitConfiguration
    /// Log each as a warning.
    public var diagnostics: [ConfigDiagnostic]
    /// `section.key` of every key the file set successfully, so the caller
    /// can tell a default from a choice (e.g. keep `--display none` on a
    /// developer machine that has no configuration file).
    public var keysSet: Set<String>
}
