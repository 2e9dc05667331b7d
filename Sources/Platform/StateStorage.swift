import BluetoothCore

/// The small files the head unit keeps its state in: `StateFiles` on the
/// data partition, memory in a test. Each write replaces a whole file.
public protocol StateStorage: AnyObject {
    /// Where the files are, for `status`.
    var directory: String { get }
    /// Every failed write or removal.
    var failures: StateWriteFailures { get }
    /// Where a file is, for log lines.
    func path(_ name: String) -> String
    /// Creates the place the files go, if it is not there.
    func prepare() throws(SystemError)
    func read(_ name: String, limit: Int) -> [UInt8]?
    /// `read(_:limit:)` with the usual 64 KiB limit. A requirement, not a
    /// protocol extension: Embedded Swift cannot call an extension's
    /// generic body on an existential (`any StateStorage`), and the
    /// firmware trapped there at start.
    func read(_ name: String) -> [UInt8]?
    /// Replaces `name` with `bytes`, or throws and leaves the old file as it was.
    func write(_ name: String, _ bytes: [UInt8]) throws(SystemError)
    func remove(_ name: String) throws(SystemError)
    func list() -> [String]
}
