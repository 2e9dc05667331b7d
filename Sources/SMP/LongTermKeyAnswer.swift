/// What the controller answers to an HCI LE Long Term Key Request, the
/// event a peripheral's controller raises when the phone starts
/// encryption. The HCI layer turns it into LE Long Term Key Request Reply
/// or Negative Reply, at once: the controller waits for it.
public enum LongTermKeyAnswer: Equatable {
    /// Reply with this key, then report the outcome with
    /// `encryptionChanged` or `encryptionFailed`.
    case replyLongTermKey(LongTermKey)
    /// Negative reply: no bond, or a key we do not hold. The phone learns
    /// we have no key (PIN or Key Missing) and may pair again.
    case refuseLongTermKey
}
