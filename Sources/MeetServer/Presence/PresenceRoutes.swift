import Hummingbird
import MeetCore

/// `PUT /me/presence {hidden}`: a user hides their presence (they then appear offline to
/// everyone, at once) or shows it again.
func addPresenceRoutes(to api: RouterGroup<AppRequestContext>, presence: PresenceTracker) {
    api.put("me/presence") { request, context in
        let me = try context.requireUser()
        let body = try await request.decode(as: PresenceSetting.self, context: context)
        try await presence.store.setHidden(body.hidden, for: me)
        presence.setHidden(body.hidden, for: me)
        return body
    }
}

/// `{hidden}`: whether the user hides their presence.
struct PresenceSetting: Codable, ResponseEncodable, Sendable {
    var hidden: Bool
}
