import Hummingbird
import MeetCore

/// `/admin/activities...`: what `meetupd admin activities` does, for a moderator's token.
/// `moderator` and `limit` are the admin routes' checks of the caller and of `limit`.
func addAdminActivityRoutes(
    to admin: RouterGroup<AppRequestContext>, moderation: ModerationService,
    moderator: @escaping @Sendable (AppRequestContext) async throws -> Moderator, limit: @escaping @Sendable (Request) throws -> Int
) {
    admin.get("activities") { request, context in
        _ = try await moderator(context)
        return ItemList(items: try await moderation.activities(search: QueryParameters(request).string("q"), limit: try limit(request)))
    }
    admin.post("activities/{id}/merge") { request, context in
        let by = try await moderator(context)
        let body = try await request.decode(as: ActivityMergeRequest.self, context: context)
        return try await moderation.mergeActivity(try context.parameters.require("id"), into: body.into, reason: body.reason, by: by)
    }
    admin.post("activities/{id}/rename") { request, context in
        let by = try await moderator(context)
        let body = try await request.decode(as: ActivityRenameRequest.self, context: context)
        return try await moderation.renameActivity(
            try context.parameters.require("id"), english: body.nameEn, ukrainian: body.nameUk, reason: body.reason, by: by)
    }
    admin.post("activities/{id}/hide") { request, context in
        let by = try await moderator(context)
        let body = try await request.decode(as: ReasonRequest.self, context: context)
        return try await moderation.setActivityHidden(try context.parameters.require("id"), true, reason: try body.required(), by: by)
    }
    admin.post("activities/{id}/unhide") { request, context in
        let by = try await moderator(context)
        let body = try await request.decode(as: ReasonRequest.self, context: context)
        return try await moderation.setActivityHidden(try context.parameters.require("id"), false, reason: body.reason, by: by)
    }
}

/// The activity that stays when the one in the path is folded into it.
struct ActivityMergeRequest: Decodable {
    var into: String
    var reason: String?
}

/// New names; at least one.
struct ActivityRenameRequest: Decodable {
    var nameEn: String?
    var nameUk: String?
    var reason: String?
}

extension ModeratedActivity: ResponseEncodable {}
