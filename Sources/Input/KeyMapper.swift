/// What the head unit does with a key: media keys become media
/// commands, the configured confirm key accepts Numeric Comparison.
public struct KeyMapper {
    /// The multimedia keys of steering-wheel adapters and keyboards.
    public static let mediaKeys: [KeyCode: MediaCommand] = [
        .playPause: .togglePlayPause,
        .nextSong: .nextTrack,
        .previousSong: .previousTrack,
        .volumeUp: .volumeUp,
        .volumeDown: .volumeDown,
        .playCD: .play,
        .pauseCD: .pause,
    ]

    /// Held volume keys keep changing the volume; a held track key must not
    /// skip a track for every autorepeat.
    public static let repeatingCommands: Set<MediaCommand> = [.volumeUp, .volumeDown]

    /// Takes precedence over a media meaning of the same key.
    public var confirmKey: KeyCode

    public init(confirmKey: KeyCode = .enter) { self.confirmKey = confirmKey }

    public func action(for event: InputEvent) -> InputAction? {
        guard event.type == .key else { return nil }
        let key = KeyCode(event.code)
        switch event.value {
        case KeyValue.press:
            if key == confirmKey { return .confirm }
            if let command = KeyMapper.mediaKeys[key] { return .media(command) }
            return .key(key)
        case KeyValue.autorepeat:
            if key != confirmKey, let command = KeyMapper.mediaKeys[key], KeyMapper.repeatingCommands.contains(command) {
                return .media(command)
            }
            return nil
        default:
            return nil
        }
    }
}
