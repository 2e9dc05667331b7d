/// The ANCS client's notifications of the session, by UID: a dictionary
/// that remembers the entry it handed out last. One notification's answers
/// look its entry up some eight times in a row (its stage, the change, the
/// request it leads to), each a hash of the UID through the standard
/// library's hasher, about 130 instructions; the same UID again is now a
/// comparison.
struct ANCSEntryTable {
    private var byUID: [NotificationUID: ANCSClient.Entry] = [:]
    /// The entry looked up or stored last, while it is in the table.
    private var recent: ANCSClient.Entry?

    var count: Int { byUID.count }
    var values: Dictionary<NotificationUID, ANCSClient.Entry>.Values { byUID.values }

    subscript(uid: NotificationUID) -> ANCSClient.Entry? {
        mutating get {
            if let recent, recent.notification.uid == uid { return recent }
            let found = byUID[uid]
            if found != nil { recent = found }
            return found
        }
        set {
            byUID[uid] = newValue
            recent = newValue
        }
    }

    @discardableResult
    mutating func removeValue(forKey uid: NotificationUID) -> ANCSClient.Entry? {
        if recent?.notification.uid == uid { recent = nil }
        return byUID.removeValue(forKey: uid)
    }

    mutating func removeAll() {
        byUID.removeAll()
        recent = nil
    }
}
