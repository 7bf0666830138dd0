import Foundation
import Hummingbird
import MeetCore

/// `/notifications`: the signed-in user's inbox, newest first, in the request's language.
func addNotificationRoutes(to api: RouterGroup<AppRequestContext>, inbox: InboxService, localizer: Localizer) {
    api.get("notifications") { request, context in
        let me = try context.requireUser()
        var parameters = QueryParameters(request)
        let limit = parameters.number("limit", 20, in: 1...InboxService.maximumLimit)
        try parameters.check()
        let page = try await inbox.page(of: me, cursor: parameters.string("cursor"), limit: limit)
        let language = localizer.language(acceptLanguage: request.headers[.acceptLanguage])
        return ItemList(items: page.items.map { NotificationBody($0, language: language, localizer: localizer) }, nextCursor: page.nextCursor)
    }
    api.post("notifications/read") { request, context in
        let me = try context.requireUser()
        let body = try await request.decode(as: ReadNotificationsRequest.self, context: context)
        return UnreadCountBody(unreadCount: try await inbox.markRead(try body.checkedIds(), of: me))
    }
}

/// `{ids: [...]}` or `{all: true}`, exactly one of them.
struct ReadNotificationsRequest: Decodable {
    var ids: [String]?
    var all: Bool?

    /// The ids to mark, or nil for all of them.
    func checkedIds() throws -> [String]? {
        switch (ids, all) {
        case (nil, true?): return nil
        case (let ids?, nil), (let ids?, false?):
            guard ids.count <= InboxService.maximumReadIds else {
                throw MeetError.invalidField("ids", "field.tooMany", arguments: ["maximum": String(InboxService.maximumReadIds)])
            }
            return ids
        case (_?, true?): throw MeetError.invalidField("all", "field.invalid")
        case (nil, _): throw MeetError.invalidField("ids", "field.required")
        }
    }
}

struct UnreadCountBody: ResponseEncodable {
    /// What stays unread: the badge the app shows.
    var unreadCount: Int
}

/// A notification as the inbox and `/user/queue/notifications` show it, localized.
struct NotificationBody: ResponseEncodable, Sendable {
    var id: String
    var kind: String
    var title: String
    var body: String
    var subjectId: String
    var deeplink: String
    var thread: String
    var createdAt: Date
    var read: Bool

    init(_ notification: InboxNotification, language: String, localizer: Localizer) {
        id = notification.id
        kind = notification.kind
        title = localizer.localized(notification.titleKey, language: language, arguments: notification.arguments) ?? notification.kind
        body = localizer.localized(notification.bodyKey, language: language, arguments: notification.arguments) ?? ""
        subjectId = notification.subjectId
        deeplink = notification.deeplink
        thread = notification.thread
        createdAt = notification.createdAt
        read = notification.readAt != nil
    }
}
