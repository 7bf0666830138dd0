import Hummingbird
import MeetCore

/// `/me/notification-settings` and `/meetings/{id}/mute`: what the signed-in user wants pushed.
func addNotificationSettingsRoutes(to api: RouterGroup<AppRequestContext>, preferences: NotificationPreferences) {
    api.get("me/notification-settings") { _, context in
        NotificationSettingsBody(quietHours: try await preferences.quietHours(of: try context.requireUser()))
    }
    api.put("me/notification-settings") { request, context in
        let me = try context.requireUser()
        let body = try await request.decode(as: NotificationSettingsBody.self, context: context)
        try await preferences.setQuietHours(body.quietHours, of: me)
        return NotificationSettingsBody(quietHours: try await preferences.quietHours(of: me))
    }
    api.put("meetings/{id}/mute") { _, context in
        try await preferences.setMuted(true, meeting: try context.parameters.require("id"), for: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
    api.delete("meetings/{id}/mute") { _, context in
        try await preferences.setMuted(false, meeting: try context.parameters.require("id"), for: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
}

/// `{quietHours: {start, end, timeZone} | null}`.
struct NotificationSettingsBody: Codable, ResponseEncodable {
    var quietHours: QuietHours?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // An explicit null: no quiet hours.
        try container.encode(quietHours, forKey: .quietHours)
    }
}
