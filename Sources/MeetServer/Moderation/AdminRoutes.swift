import Foundation
import Hummingbird
import MeetCore

/// `/admin/...`: what `meetupd admin` does, for a moderator's token, through the same
/// `ModerationService` (and `AccountService` for mails). Anyone else gets 403
/// `moderation.forbidden`. `liveFigures` asks the running broker who is connected (nil in a
/// router without one: `live` is then null, as for the CLI with no server).
func addAdminRoutes(
    to api: RouterGroup<AppRequestContext>, moderation: ModerationService, accounts: AccountService,
    liveFigures: (@Sendable () -> ServerLiveFigures)?
) {
    let admin = api.group("admin")
    /// The signed-in moderator, or a refusal.
    @Sendable func moderator(_ context: AppRequestContext) async throws -> Moderator {
        let me = try context.requireUser()
        guard try await moderation.isModerator(me) else { throw MeetError("moderation.forbidden", status: 403) }
        return .user(me)
    }
    @Sendable func limit(_ request: Request) throws -> Int {
        var parameters = QueryParameters(request)
        let limit = parameters.number("limit", 50, in: 1...1000)
        try parameters.check()
        return limit
    }

    admin.get("users") { request, context in
        _ = try await moderator(context)
        return ItemList(items: try await moderation.users(search: QueryParameters(request).string("q"), limit: try limit(request)))
    }
    admin.get("users/{id}") { _, context in
        _ = try await moderator(context)
        return try await moderation.user(try context.parameters.require("id"))
    }
    admin.post("users/{id}/ban") { request, context in
        let by = try await moderator(context)
        let body = try await request.decode(as: BanRequest.self, context: context)
        return try await moderation.ban(try context.parameters.require("id"), reason: try body.required(), until: body.until, by: by)
    }
    admin.post("users/{id}/unban") { request, context in
        let by = try await moderator(context)
        let body = try await request.decode(as: ReasonRequest.self, context: context)
        return try await moderation.unban(try context.parameters.require("id"), reason: body.reason, by: by)
    }
    admin.post("users/{id}/confirm") { _, context in
        try await moderation.confirm(try context.parameters.require("id"), by: try await moderator(context))
    }
    admin.post("users/{id}/promote") { _, context in
        try await moderation.setRole(try context.parameters.require("id"), to: .moderator, by: try await moderator(context))
    }
    admin.post("users/{id}/demote") { _, context in
        try await moderation.setRole(try context.parameters.require("id"), to: .user, by: try await moderator(context))
    }
    admin.get("meetings") { request, context in
        _ = try await moderator(context)
        let all = QueryParameters(request).string("all") == "true"
        return ItemList(items: try await moderation.meetings(
            search: QueryParameters(request).string("q"), includeCancelled: all, limit: try limit(request)))
    }
    admin.get("meetings/{id}") { _, context in
        _ = try await moderator(context)
        return try await moderation.meeting(try context.parameters.require("id"))
    }
    admin.post("meetings/{id}/cancel") { request, context in
        let by = try await moderator(context)
        let body = try await request.decode(as: ReasonRequest.self, context: context)
        return try await moderation.cancelMeeting(try context.parameters.require("id"), reason: try body.required(), by: by)
    }
    admin.post("meetings/{id}/delete") { request, context in
        let by = try await moderator(context)
        let body = try await request.decode(as: ReasonRequest.self, context: context)
        try await moderation.deleteMeeting(try context.parameters.require("id"), reason: try body.required(), by: by)
        return HTTPResponse.Status.noContent
    }
    admin.get("meetings/{id}/messages") { request, context in
        _ = try await moderator(context)
        var parameters = QueryParameters(request)
        let around = parameters.value("around") { Int64($0) }
        try parameters.check()
        return ItemList(items: try await moderation.messages(
            ofMeeting: try context.parameters.require("id"), around: around, limit: try limit(request)))
    }
    admin.post("messages/{id}/redact") { request, context in
        let by = try await moderator(context)
        let body = try await request.decode(as: ReasonRequest.self, context: context)
        try await moderation.redactMessage(try context.parameters.require("id"), reason: try body.required(), by: by)
        return HTTPResponse.Status.noContent
    }
    admin.post("users/{id}/reset-password") { _, context in
        let by = try await moderator(context)
        return MailedAnswer(mailed: try await accounts.sendPasswordReset(to: try context.parameters.require("id"), by: by))
    }
    admin.post("users/{id}/delete") { request, context in
        let by = try await moderator(context)
        let body = try await request.decode(as: ReasonRequest.self, context: context)
        try await moderation.deleteUser(try context.parameters.require("id"), reason: try body.required(), by: by)
        return HTTPResponse.Status.noContent
    }
    admin.get("reports") { request, context in
        _ = try await moderator(context)
        let open = QueryParameters(request).string("open") == "true"
        return ItemList(items: try await moderation.reports(openOnly: open, limit: try limit(request)))
    }
    admin.get("reports/{id}") { _, context in
        _ = try await moderator(context)
        return try await moderation.report(try context.parameters.require("id"))
    }
    admin.post("reports/{id}/resolve") { request, context in
        let by = try await moderator(context)
        let body = try await request.decode(as: ResolveRequest.self, context: context)
        guard let action = Report.Resolution(rawValue: body.action) else { throw MeetError.invalidField("action", "field.invalid") }
        return try await moderation.resolve(try context.parameters.require("id"), action: action, note: body.note, by: by)
    }
    addAdminActivityRoutes(to: admin, moderation: moderation, moderator: moderator, limit: limit)
    admin.get("audit") { request, context in
        _ = try await moderator(context)
        return ItemList(items: try await moderation.audit(limit: try limit(request), targetId: QueryParameters(request).string("targetId")))
    }
    admin.get("stats") { _, context in
        _ = try await moderator(context)
        return ModerationStatsReport(stats: try await moderation.stats(), live: liveFigures?())
    }
}

struct ReasonRequest: Decodable {
    var reason: String?

    /// The reason, which a ban and a cancel must give.
    func required() throws -> String {
        guard let reason, !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw MeetError.invalidField("reason", "field.required")
        }
        return reason
    }
}

/// A ban's reason, and its end for a temporary one.
struct BanRequest: Decodable {
    var reason: String?
    var until: Date?

    func required() throws -> String { try ReasonRequest(reason: reason).required() }
}

/// The address a password-reset mail went to.
struct MailedAnswer: ResponseEncodable {
    var mailed: String
}

struct ResolveRequest: Decodable {
    var action: String
    var note: String?
}

extension ModeratedUser: ResponseEncodable {}
extension ModeratedUserDetails: ResponseEncodable {}
extension ModeratedMeeting: ResponseEncodable {}
extension AuditEntry: ResponseEncodable {}
extension ModeratedMessage: ResponseEncodable {}
extension ReportDetails: ResponseEncodable {}
extension ModerationStatsReport: ResponseEncodable {}
