/// The arrow shown for a navigation instruction, and the `maneuver` field
/// of the `notification` event (docs/PROTOCOL.md §6).
public enum Maneuver: Equatable, Hashable, CaseIterable {
    case left, right, slightLeft, slightRight, sharpLeft, sharpRight, uTurn, roundabout, straight, merge
    case exitLeft, exitRight, arrive
    /// Nothing understood (an unknown phrasing or language): no arrow is
    /// better than a wrong one.
    case neutral

    /// The name in the event log.
    public var eventName: String { eventWord.description }

    /// The name as the event log copies it.
    public var eventWord: StaticString {
        switch self {
        case .left: return "left"
        case .right: return "right"
        case .slightLeft: return "slight_left"
        case .slightRight: return "slight_right"
        case .sharpLeft: return "sharp_left"
        case .sharpRight: return "sharp_right"
        case .uTurn: return "uturn"
        case .roundabout: return "roundabout"
        case .straight: return "straight"
        case .merge: return "merge"
        case .exitLeft: return "exit_left"
        case .exitRight: return "exit_right"
        case .arrive: return "arrive"
        case .neutral: return "neutral"
        }
    }
}
