import Hummingbird
import MeetCore

/// The chat's REST side: a room's history and read marker for its members, and the caller's
/// chat list. A private meeting's outsiders get 404 like any unknown meeting.
func addChatRoutes(to api: RouterGroup<AppRequestContext>, chat: ChatService, linkBase: String) {
    // Newest first; `nextCursor` is the `beforeSeq` of the next (older) page.
    api.get("meetings/{id}/messages") { request, context in
        let viewer = try context.requireUser()
        let page = try HistoryPage(request)
        let history = try await chat.history(
            of: try context.parameters.require("id"), viewer: viewer, beforeSeq: page.beforeSeq, limit: page.limit)
        return page.list(history, linkBase: linkBase)
    }
    api.post("meetings/{id}/messages/read") { request, context in
        let reader = try context.requireUser()
        let body = try await request.decode(as: ChatSeqRequest.self, context: context)
        let state = try await chat.markRead(try context.parameters.require("id"), upTo: body.seq, by: reader)
        return ReadMarkerBody(lastReadSeq: state.lastReadSeq, unreadCount: state.unreadCount)
    }
    // Most recently active first; `nextCursor` is the `cursor` of the next page.
    api.get("me/rooms") { request, context in
        let me = try context.requireUser()
        var parameters = QueryParameters(request)
        let limit = parameters.number("limit", 30, in: ChatService.roomPageLimit)
        let cursor = parameters.value("cursor", ChatRoomCursor.init)
        try parameters.check()
        let page = try await chat.rooms(of: me, after: cursor, limit: limit)
        return ItemList(items: page.rooms.map { ChatRoomBody($0, linkBase: linkBase) }, nextCursor: page.next?.text)
    }
}

/// Direct conversations over REST: the history with one friend and the read marker in it. A user
/// one has no conversation with (unknown, never a friend, blocked) answers `user.notFound`.
func addDirectRoutes(to api: RouterGroup<AppRequestContext>, chat: ChatService, linkBase: String) {
    // Newest first; `nextCursor` is the `beforeSeq` of the next (older) page.
    api.get("direct/{id}/messages") { request, context in
        let viewer = try context.requireUser()
        let page = try HistoryPage(request)
        let history = try await chat.directHistory(
            with: try context.parameters.require("id"), viewer: viewer, beforeSeq: page.beforeSeq, limit: page.limit)
        return page.list(history, linkBase: linkBase)
    }
    api.post("direct/{id}/messages/read") { request, context in
        let reader = try context.requireUser()
        let body = try await request.decode(as: ChatSeqRequest.self, context: context)
        let state = try await chat.markDirectRead(with: try context.parameters.require("id"), upTo: body.seq, by: reader)
        return ReadMarkerBody(lastReadSeq: state.lastReadSeq, unreadCount: state.unreadCount)
    }
}

/// `?beforeSeq=&limit=` of a history page (limit 1–200, default 50).
private struct HistoryPage {
    var beforeSeq: Int64?
    var limit: Int

    init(_ request: Request) throws {
        var parameters = QueryParameters(request)
        beforeSeq = parameters.number("beforeSeq", atLeast: 1)
        limit = parameters.number("limit", 50, in: ChatService.pageLimit)
        try parameters.check()
    }

    /// The page as a list: `nextCursor` is the `beforeSeq` of the next, older page.
    func list(_ page: ChatHistoryPage, linkBase: String) -> ItemList<ChatMessageBody> {
        ItemList(items: page.messages.map { ChatMessageBody($0, linkBase: linkBase) }, nextCursor: page.nextBeforeSeq.map(String.init))
    }
}
