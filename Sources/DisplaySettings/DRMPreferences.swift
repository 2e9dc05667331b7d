/// The DRM connector and mode asked for by the configuration; nil means
/// automatic (the Display module's DRM output chooses with them).
public struct DRMPreferences: Equatable {
    /// Connector name such as "HDMI-A-1" (case-insensitive).
    public var connector: String?
    public var width: Int?
    public var height: Int?
    public var refresh: Int?

    public init(connector: String? = nil, width: Int? = nil, height: Int? = nil, refresh: Int? = nil) {
        self.connector = connector; self.width = width; self.height = height; self.refresh = refresh
    }

    /// Parses "1280x720" or "1280x720@60".
    public static func parseMode(_ s: String) -> (width: Int, height: Int, refresh: Int?)? {
        let at = s.split(separator: "@", omittingEmptySubsequences: false)
        guard at.count <= 2 else { return nil }
        let wh = at[0].split(separator: "x", omittingEmptySubsequences: false)
        guard wh.count == 2, let w = Int(wh[0]), let h = Int(wh[1]), w > 0, h > 0 else { return nil }
        if at.count == 2 {
            guard let r = Int(at[1]), r > 0 else { return nil }
            return (w, h, r)
        }
        return (w, h, nil)
    }
}
