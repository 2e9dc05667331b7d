import NavigationNotifier

/// The central role's scan: the duty the pairing routine wants (applied
/// whenever the controller is ready) and the advertisers it has heard.
struct ScanState {
    var wanted: ScanDuty?
    var advertisers = Advertisers()
}
