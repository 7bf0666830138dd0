import Hummingbird
import MeetCore

/// `/friends...` and `/blocks...`: friend requests, friendships, suggestions and blocks of
/// the signed-in user.
func addFriendRoutes(to api: RouterGroup<AppRequestContext>, friends: FriendService) {
    api.get("friends") { _, context in
        ItemList(items: try await friends.friends(of: try context.requireUser()))
    }
    api.delete("friends/{userId}") { _, context in
        try await friends.unfriend(try context.parameters.require("userId"), by: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
    api.get("friends/suggestions") { request, context in
        let me = try context.requireUser()
        var parameters = QueryParameters(request)
        let limit = parameters.number("limit", 20, in: 1...FriendService.maxSuggestions)
        try parameters.check()
        return ItemList(items: try await friends.suggestions(for: me, limit: limit))
    }
    api.get("friends/requests") { _, context in
        // Both directions in one list: `from` and `to` tell a client which are its own.
        let requests = try await friends.requests(of: try context.requireUser())
        return ItemList(items: requests.incoming + requests.outgoing)
    }
    api.post("friends/requests") { request, context in
        let me = try context.requireUser()
        let body = try await request.decode(as: UserIdRequest.self, context: context)
        let sent = try await friends.sendRequest(from: me, to: body.userId)
        // Asking someone who had asked me accepts theirs: nothing new is created.
        return EditedResponse(status: sent.status == .accepted ? .ok : .created, response: FriendRequestBody(request: sent))
    }
    api.delete("friends/requests/{id}") { _, context in
        try await friends.cancel(request: try context.parameters.require("id"), by: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
    api.post("friends/requests/{id}/accept") { _, context in
        FriendRequestBody(request: try await friends.accept(request: try context.parameters.require("id"), by: try context.requireUser()))
    }
    api.post("friends/requests/{id}/decline") { _, context in
        try await friends.decline(request: try context.parameters.require("id"), by: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
    api.get("blocks") { _, context in
        ItemList(items: try await friends.blocked(by: try context.requireUser()))
    }
    api.post("blocks") { request, context in
        let me = try context.requireUser()
        let body = try await request.decode(as: UserIdRequest.self, context: context)
        try await friends.block(body.userId, by: me)
        return HTTPResponse.Status.noContent
    }
    api.delete("blocks/{userId}") { _, context in
        try await friends.unblock(try context.parameters.require("userId"), by: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
}

struct UserIdRequest: Decodable {
    var userId: String
}

/// One request, encoded as the request itself.
struct FriendRequestBody: ResponseEncodable {
    var request: FriendRequest

    func encode(to encoder: any Encoder) throws {
        try request.encode(to: encoder)
    }
}
