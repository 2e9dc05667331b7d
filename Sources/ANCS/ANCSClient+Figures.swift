/// How full the client's tables are, for the diagnostics console and the soak test.
extension ANCSClient {
    /// Notifications tracked in this session (at most `configuration.maximumNotifications`).
    public var trackedCount: Int { entries.count }
    /// Control Point requests waiting to be sent.
    public var queuedRequests: Int { queue.count }
}
