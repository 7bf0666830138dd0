import MeetCore

/// How pushes are built and delivered (`meetupd serve --apns-topic ...`; `docs/notifications.md`).
public struct PushSettings: Sendable {
    /// The iOS app's bundle id: the `apns-topic` of every APNs push.
    public var apnsTopic = "org.example.meetup"
    /// Retries of failed pushes: attempts, backoff.
    public var retry = PushRetryPolicy()
    /// Jobs the dispatcher claims and delivers concurrently at a time.
    public var batchSize = 64

    public init() {}
}
