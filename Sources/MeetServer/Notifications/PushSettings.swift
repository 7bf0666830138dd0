import Foundation
import MeetCore

/// How pushes are built, delivered and retried (`meetupd serve --apns-topic ...`;
/// `docs/notifications.md`).
public struct PushSettings: Sendable {
    /// APNs with token-based authentication.
    public struct APNs: Sendable {
        public var key: APNsSigningKey
        /// Overrides both hosts (production and sandbox), e.g. for a local test service.
        public var url: String?

        public init(key: APNsSigningKey, url: String? = nil) {
            self.key = key
            self.url = url
        }
    }

    /// FCM HTTP v1 with a service account.
    public struct FCM: Sendable {
        public var account: FCMServiceAccount
        public var url = "https://fcm.googleapis.com"

        public init(account: FCMServiceAccount, url: String? = nil) {
            self.account = account
            if let url { self.url = url }
        }
    }

    /// The iOS app's bundle id: the `apns-topic` of every APNs push.
    public var apnsTopic = "org.example.meetup"
    /// Retries of failed pushes: attempts, backoff.
    public var retry = PushRetryPolicy()
    /// How long a chat message's push waits for the room's next messages (``ChatPushes``).
    public var chatDelay = ChatPushes.defaultDelay
    /// Jobs the dispatcher claims and delivers concurrently at a time.
    public var batchSize = 64
    /// Real delivery to Apple's and Google's services; a service left nil (the default) goes
    /// to the pushdrop.
    public var apns: APNs?
    public var fcm: FCM?
    /// Extra certificates to trust on the services' TLS connections (a proxy's, a test's).
    public var trustedCertificatesFile: String?

    public init() {}
}
