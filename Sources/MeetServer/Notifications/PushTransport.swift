import MeetCore

/// Delivers one push and says what became of it. Transports never throw: every failure is an
/// outcome the dispatcher records (retry, reject, disable the device).
protocol PushTransport: Sendable {
    func deliver(_ message: PushMessage) async -> PushOutcome
}
