import Hummingbird
import MeetCore

/// `/me/notification-settings`, `/meetings/{id}/mute` and `/direct/{id}/mute` (a friend's id):
/// what the signed-in user wants pushed or mailed.
func addNotificationSettingsRoutes(to api: RouterGroup<AppRequestContext>, preferences: NotificationPreferences) {
    @Sendable func settings(of me: String) async throws -> NotificationSettingsBody {
        NotificationSettingsBody(quietHours: try await preferences.quietHours(of: me), email: try await preferences.emailSettings(of: me))
    }
    api.get("me/notification-settings") { _, context in
        try await settings(of: try context.requireUser())
    }
    api.put("me/notification-settings") { request, context in
        let me = try context.requireUser()
        let change = try await request.decode(as: NotificationSettingsChange.self, context: context)
        if let quietHours = change.quietHours { try await preferences.setQuietHours(quietHours, of: me) }
        if let email = change.email {
            var settings = try await preferences.emailSettings(of: me)
            settings.invitations = email.invitations ?? settings.invitations
            settings.meetingChanges = email.meetingChanges ?? settings.meetingChanges
            try await preferences.setEmailSettings(settings, of: me)
        }
        return try await settings(of: me)
    }
    api.put("meetings/{id}/mute") { _, context in
        try await preferences.setMuted(true, meeting: try context.parameters.require("id"), for: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
    api.delete("meetings/{id}/mute") { _, context in
        try await preferences.setMuted(false, meeting: try context.parameters.require("id"), for: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
    api.put("direct/{id}/mute") { _, context in
        try await preferences.setMuted(true, conversationWith: try context.parameters.require("id"), for: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
    api.delete("direct/{id}/mute") { _, context in
        try await preferences.setMuted(false, conversationWith: try context.parameters.require("id"), for: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
}

/// `{quietHours: {start, end, timeZone} | null, email: {invitations, meetingChanges}}`.
struct NotificationSettingsBody: Encodable, ResponseEncodable {
    var quietHours: QuietHours?
    var email: EmailSettings

    enum CodingKeys: CodingKey {
        case quietHours, email
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // An explicit null: no quiet hours.
        try container.encode(quietHours, forKey: .quietHours)
        try container.encode(email, forKey: .email)
    }
}

/// A PUT of the settings: what it names changes, the rest stays. `quietHours: null` clears
/// the quiet hours; `email` may name one topic or both.
struct NotificationSettingsChange: Decodable {
    /// nil: left as it is; `.some(nil)`: no quiet hours.
    var quietHours: QuietHours??
    var email: EmailChange?

    struct EmailChange: Decodable {
        var invitations: Bool?
        var meetingChanges: Bool?
    }

    enum CodingKeys: CodingKey {
        case quietHours, email
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.quietHours) {
            quietHours = .some(try container.decodeNil(forKey: .quietHours) ? nil : try container.decode(QuietHours.self, forKey: .quietHours))
        }
        email = try container.decodeIfPresent(EmailChange.self, forKey: .email)
    }
}
