/// The phone's classification of a notification (ANCS CategoryID). Values
/// 12-255 are reserved: kept as they came, named "Reserved(n)".
public struct CategoryID: Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let other = CategoryID(0)
    public static let incomingCall = CategoryID(1)
    public static let missedCall = CategoryID(2)
    public static let voicemail = CategoryID(3)
    public static let social = CategoryID(4)
    public static let schedule = CategoryID(5)
    public static let email = CategoryID(6)
    public static let news = CategoryID(7)
    public static let healthAndFitness = CategoryID(8)
    public static let businessAndFinance = CategoryID(9)
    public static let location = CategoryID(10)
    public static let entertainment = CategoryID(11)

    private static let names: [StaticString] = ["Other", "IncomingCall", "MissedCall", "Voicemail", "Social", "Schedule",
                                                "Email", "News", "HealthAndFitness", "BusinessAndFinance", "Location",
                                                "Entertainment"]

    /// The name used in Apple's specification (and in config files).
    public var name: String { word?.description ?? "Reserved(\(rawValue))" }

    /// `name` as the event log copies it; nil for a reserved value.
    public var word: StaticString? {
        let index = Int(rawValue)
        return index < CategoryID.names.count ? CategoryID.names[index] : nil
    }

    /// From a name as `name` spells it (case-insensitive) or a decimal number.
    public init?(name: String) {
        let wanted = name.lowercased()
        for (index, known) in CategoryID.names.enumerated() where known.description.lowercased() == wanted {
            self.init(UInt8(index))
            return
        }
        guard let number = UInt8(name) else { return nil }
        self.init(number)
    }

    public var description: String { name }
}
