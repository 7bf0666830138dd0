import Foundation

/// Builds the documented APNs and FCM JSON of a notification, in its device's language:
/// title and body localized, the thread as `thread-id`, a collapse key, the user's unread
/// count as badge, and the notification's id, kind, subject and deeplink as custom data.
public struct PushPayloads: Sendable {
    let localizer: Localizer
    /// The app's bundle id, the `apns-topic` of every APNs push.
    let apnsTopic: String
    /// How long the push services keep trying to reach a phone that is offline.
    let timeToLive: TimeInterval

    /// Payloads localized by `localizer` for the app `apnsTopic` (its bundle id); the push services
    /// keep trying to reach an offline phone for `timeToLive` seconds (a day by default).
    public init(localizer: Localizer, apnsTopic: String, timeToLive: TimeInterval = 24 * 3600) {
        self.localizer = localizer
        self.apnsTopic = apnsTopic
        self.timeToLive = timeToLive
    }

    /// The push of `delivery` for its device's service.
    public func message(for delivery: PushDelivery) throws -> PushMessage {
        let notification = delivery.notification
        let device = delivery.device
        let language = localizer.language(acceptLanguage: device.locale)
        let text = Alert(
            title: localizer.localized(notification.titleKey, language: language, arguments: notification.arguments) ?? notification.kind,
            body: localizer.localized(notification.bodyKey, language: language, arguments: notification.arguments) ?? "")
        let expiry = Int(notification.createdAt.timeIntervalSince1970 + timeToLive)
        let headers: [String: String]
        let body: Data
        switch device.pushService {
        case .apns:
            headers = [
                "apns-push-type": "alert", "apns-topic": apnsTopic, "apns-priority": "10",
                // Threads are `meeting.{id}`-like ASCII, within the 64 bytes APNs allows.
                "apns-expiration": String(expiry), "apns-collapse-id": notification.collapseKey,
            ]
            body = try Self.encoder.encode(APNsBody(
                aps: .init(alert: text, badge: delivery.badge, threadId: notification.thread),
                notificationId: notification.id, kind: notification.kind, subjectId: notification.subjectId,
                deeplink: notification.deeplink))
        case .fcm:
            headers = ["content-type": "application/json; charset=UTF-8"]
            body = try Self.encoder.encode(FCMBody(message: .init(
                token: device.token, notification: text,
                data: [
                    "notificationId": notification.id, "kind": notification.kind, "subjectId": notification.subjectId,
                    "deeplink": notification.deeplink, "badge": String(delivery.badge),
                ],
                android: .init(
                    collapseKey: notification.collapseKey, priority: "high", ttl: "\(Int(timeToLive))s",
                    notification: .init(tag: notification.collapseKey, notificationCount: delivery.badge)))))
        }
        return PushMessage(
            service: device.pushService, environment: device.environment, token: device.token, notificationId: notification.id,
            jobId: delivery.job.id ?? 0, attempt: delivery.job.attempts, headers: headers, body: body)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

/// The visible text of a push, in both services' shapes.
struct Alert: Encodable {
    var title: String
    var body: String
}

/// APNs: the `aps` dictionary plus the app's own keys.
struct APNsBody: Encodable {
    struct APS: Encodable {
        var alert: Alert
        var badge: Int
        var sound = "default"
        var threadId: String

        enum CodingKeys: String, CodingKey {
            case alert, badge, sound
            case threadId = "thread-id"
        }
    }

    var aps: APS
    var notificationId: String
    var kind: String
    var subjectId: String
    var deeplink: String
}

/// FCM HTTP v1: `{"message": {...}}` for `projects/{id}/messages:send`; `data` values are strings.
struct FCMBody: Encodable {
    struct Message: Encodable {
        var token: String
        var notification: Alert
        var data: [String: String]
        var android: Android
    }

    struct Android: Encodable {
        struct Notification: Encodable {
            var tag: String
            var notificationCount: Int

            enum CodingKeys: String, CodingKey {
                case tag
                case notificationCount = "notification_count"
            }
        }

        var collapseKey: String
        var priority: String
        var ttl: String
        var notification: Notification

        enum CodingKeys: String, CodingKey {
            case priority, ttl, notification
            case collapseKey = "collapse_key"
        }
    }

    var message: Message
}
