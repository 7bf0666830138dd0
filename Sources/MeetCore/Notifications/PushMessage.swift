import Foundation

/// A push ready for a transport: where it goes, the service's request headers, and exactly
/// the body that is sent.
public struct PushMessage: Sendable, Equatable {
    /// Which push service it goes through.
    public var service: Device.PushService
    /// Which APNs host it goes to (sandbox for development builds); always `production` for FCM.
    public var environment: Device.Environment
    /// The device's push token, as the app registered it.
    public var token: String
    /// The notification it carries, also inside the body, so that the app drops a repeat.
    public var notificationId: String
    /// The row id of the ``PushJob`` it delivers, for recording the outcome.
    public var jobId: Int64
    /// 1 for the first attempt.
    public var attempt: Int
    /// The request headers the service expects (APNs: `apns-push-type`, `apns-topic`...).
    public var headers: [String: String]
    /// The JSON body, as sent.
    public var body: Data
}
