import Hummingbird
import MeetCore

/// `GET /meetings/{id}/messages?beforeSeq&limit`: a room's history for its members, newest
/// first; a private meeting's outsiders get 404 like any unknown meeting.
func addChatRoutes(to api: RouterGroup<AppRequestContext>, chat: ChatService, linkBase: String) {
    api.get("meetings/{id}/messages") { request, context in
        let viewer = try context.requireUser()
        let query = request.uri.queryParameters
        var problems: [MeetError.FieldProblem] = []
        let beforeSeq = query["beforeSeq"].flatMap { text -> Int64? in
            guard let seq = Int64(text), seq > 0 else {
                problems.append(.init(field: "beforeSeq", code: "field.invalid"))
                return nil
            }
            return seq
        }
        let limit = query["limit"].map { Int($0) ?? 0 } ?? 50
        if !problems.isEmpty { throw MeetError.invalidFields(problems) }
        let messages = try await chat.history(
            of: try context.parameters.require("id"), viewer: viewer, beforeSeq: beforeSeq, limit: limit)
        let next = messages.count == limit ? messages.last.map { String($0.seq) } : nil
        // Newest first; `nextCursor` is the `beforeSeq` of the next page.
        return ItemList(items: messages.map { ChatMessageBody($0, linkBase: linkBase) }, nextCursor: next)
    }
}
