import Foundation

/// A push ready for a transport: where it goes, the service's request headers, and exactly
/// the body that is sent.
public struct PushMessage: Sendable, Equatable {
    public var service: Device.PushService
    public var environment: Device.Environment
    public var token: String
    /// The notification it carries, also inside the body, so that the app drops a repeat.
    public var notificationId: String
    public var jobId: Int64
    /// 1 for the first attempt.
    public var attempt: Int
    /// The request headers the service expects (APNs: `apns-push-type`, `apns-topic`...).
    public var headers: [String: String]
    /// The JSON body, as sent.
    public var body: Data
}
