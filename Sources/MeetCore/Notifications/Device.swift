import Foundation
import GRDB

/// A phone (or browser) that receives push notifications for its user.
public struct Device: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    /// Which push service delivers to the device.
    public enum PushService: String, Codable, Sendable, CaseIterable {
        case apns, fcm
    }

    /// Which APNs host a token belongs to: tokens of development builds only work on the
    /// sandbox host. FCM devices are always `production`.
    public enum Environment: String, Codable, Sendable, CaseIterable {
        case sandbox, production
    }

    /// The server's id for the device, which the app names to unregister it (`DELETE /devices/{id}`).
    public var id: String
    /// The user whose notifications it receives.
    public var userId: String
    /// Which push service delivers to it.
    public var pushService: PushService
    /// The push token the service issued to the app; unique per service.
    public var token: String
    /// The language the device shows its notifications in (`en`, `uk-UA`).
    public var locale: String
    /// The app's version as the app reported it (at most 64 characters); nil when it did not say.
    public var appVersion: String?
    /// Which APNs host its token belongs to.
    public var environment: Environment
    /// When it was first registered.
    public var createdAt: Date
    /// When it was last registered again (or first registered).
    public var updatedAt: Date
    /// When the push service refused the token for good; such a device gets no more pushes.
    public var disabledAt: Date?
    /// The push service's reason (`Unregistered`, `UNREGISTERED`...).
    public var disabledReason: String?

    /// The `device` table.
    public static let databaseTableName = "device"
}

/// What a client sends to register a device (`POST /devices`).
public struct DeviceRegistration: Sendable, Equatable {
    /// `apns` or `fcm`; anything else is refused.
    public var pushService: String
    /// The push token; blanks around it are trimmed, none inside, at most 4096 bytes.
    public var token: String
    /// A language tag (`en`, `uk-UA`): the language of its notifications.
    public var locale: String
    /// The app's version, at most 64 characters; optional.
    public var appVersion: String?
    /// `sandbox` or `production` (the default when nil); FCM devices are always `production`.
    public var environment: String?

    /// A registration as the client sent it; ``DeviceService/register(_:for:)`` checks it.
    public init(pushService: String, token: String, locale: String, appVersion: String? = nil, environment: String? = nil) {
        self.pushService = pushService
        self.token = token
        self.locale = locale
        self.appVersion = appVersion
        self.environment = environment
    }

    /// The longest token accepted: APNs tokens are 64 hex digits, FCM tokens about 160
    /// characters; the bound only keeps junk out.
    static let maximumTokenLength = 4096
    static let maximumAppVersionLength = 64

    /// The checked fields, or every field problem at once.
    func checked() throws -> (service: Device.PushService, token: String, environment: Device.Environment) {
        var problems: [MeetError.FieldProblem] = []
        let service = Device.PushService(rawValue: pushService)
        if service == nil { problems.append(.init(field: "pushService", code: "field.invalid")) }
        let token = token.trimmingCharacters(in: .whitespacesAndNewlines)
        if token.isEmpty {
            problems.append(.init(field: "token", code: "field.required"))
        } else if token.utf8.count > Self.maximumTokenLength || token.contains(where: { $0.isWhitespace }) {
            problems.append(.init(field: "token", code: "device.invalidToken"))
        }
        if !RegistrationForm.isLanguageTag(locale) { problems.append(.init(field: "locale", code: "locale.invalid")) }
        if let appVersion, appVersion.count > Self.maximumAppVersionLength {
            problems.append(.init(field: "appVersion", code: "field.tooLong", arguments: ["maximum": String(Self.maximumAppVersionLength)]))
        }
        let environment = environment.map { Device.Environment(rawValue: $0) } ?? .production
        if environment == nil { problems.append(.init(field: "environment", code: "field.invalid")) }
        guard let service, let environment, problems.isEmpty else { throw MeetError.invalidFields(problems) }
        // FCM has one environment; only APNs tokens differ between sandbox and production.
        return (service, token, service == .fcm ? .production : environment)
    }
}
