import Foundation
import Hummingbird
import MeetCore

/// `/meetings/...`, `/invitations/...`, `GET /me/invitations` and the calendar files.
func addMeetingRoutes(
    to api: RouterGroup<AppRequestContext>, meetings: MeetingService, accounts: AccountService, grants: RoomGrants, linkBase: String
) {
    // The API address of a meeting, on the configured public address (never the request's Host).
    let meetingLink: @Sendable (String) -> String = { id in "\(linkBase)/api/v1/meetings/\(id)" }
    api.post("meetings") { request, context in
        let user = try context.requireUser()
        let draft = try await request.decode(as: MeetingDraft.self, context: context)
        return EditedResponse(status: .created, response: try await meetings.create(draft, by: user))
    }
    api.get("meetings") { request, context in
        let query = try FeedQuery(request.uri.queryParameters).request
        // The token is checked inside the feed's read (`feedRoute`, BearerAuthMiddleware).
        guard let token = context.uncheckedBearerToken else { return try await meetings.feed(query, viewer: try context.requireUser()) }
        guard let page = try await meetings.feed(query, bearer: token, accounts: accounts, grants: grants) else {
            throw AppRequestContext.unauthenticated(presentedInvalidCredentials: true)
        }
        return page
    }
    api.get("meetings/{id}") { _, context in
        try await meetings.meeting(try context.parameters.require("id"), viewer: try context.requireUser())
    }
    api.patch("meetings/{id}") { request, context in
        let user = try context.requireUser()
        let changes = try await request.decode(as: MeetingChanges.self, context: context)
        return try await meetings.update(try context.parameters.require("id"), with: changes, by: user)
    }
    api.delete("meetings/{id}") { _, context in
        try await meetings.cancel(try context.parameters.require("id"), by: try context.requireUser())
    }
    api.post("meetings/{id}/join") { _, context in
        try await meetings.join(try context.parameters.require("id"), by: try context.requireUser())
    }
    api.post("meetings/{id}/leave") { _, context in
        try await meetings.leave(try context.parameters.require("id"), by: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
    api.get("meetings/{id}/members") { _, context in
        ItemList(items: try await meetings.members(of: try context.parameters.require("id"), viewer: try context.requireUser()))
    }
    api.delete("meetings/{id}/members/{userId}") { _, context in
        let user = try context.requireUser()
        try await meetings.removeMember(try context.parameters.require("userId"), from: try context.parameters.require("id"), by: user)
        return HTTPResponse.Status.noContent
    }
    api.post("meetings/{id}/invitations") { request, context in
        let user = try context.requireUser()
        let body = try await request.decode(as: InviteRequest.self, context: context)
        let sent = try await meetings.invite(body.userIds, to: try context.parameters.require("id"), by: user)
        return EditedResponse(status: .created, response: ItemList(items: sent))
    }
    api.get("me/invitations") { _, context in
        ItemList(items: try await meetings.invitations(for: try context.requireUser()))
    }
    api.post("invitations/{id}/accept") { _, context in
        try await meetings.answerInvitation(try context.parameters.require("id"), accept: true, by: try context.requireUser())
    }
    api.post("invitations/{id}/decline") { _, context in
        try await meetings.answerInvitation(try context.parameters.require("id"), accept: false, by: try context.requireUser())
    }
    api.get("meetings/{id}/calendar.ics") { _, context in
        let id = try context.parameters.require("id")
        let ics = try await meetings.calendar(for: id, viewer: try context.requireUser(), link: meetingLink)
        return CalendarResponse(text: ics, filename: "meeting-\(id).ics")
    }
    api.get("me/calendar.ics") { _, context in
        CalendarResponse(text: try await meetings.myCalendar(try context.requireUser(), link: meetingLink), filename: "meetings.ics")
    }
}


struct InviteRequest: Decodable {
    var userIds: [String]
}

/// A `text/calendar` body.
struct CalendarResponse: ResponseGenerator {
    var text: String
    var filename: String

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/calendar; charset=utf-8", .contentDisposition: "inline; filename=\"\(filename)\""],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

extension Meeting: ResponseEncodable {}
extension Invitation: ResponseEncodable {}

/// The feed's route, which checks its bearer token inside its own read (`checkedByRoute`).
let feedRoute = BearerAuthMiddleware.Route(method: .get, path: "/api/v1/meetings")
