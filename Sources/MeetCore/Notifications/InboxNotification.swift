import Foundation
import GRDB

/// One entry of a user's inbox: something they were told about, which the app lists, opens
/// through its deeplink and marks read. Its push deliveries are ``PushJob``s.
public struct InboxNotification: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    /// Orders the inbox; the cursor of its pages.
    public var seq: Int64?
    /// The notification's id, carried by every push of it, so that the app can drop a repeat.
    public var id: String
    /// The user whose inbox it is in; only they see it.
    public var userId: String
    /// The event it tells of (`invitation.sent`); the key of its localized text.
    public var kind: String
    /// The entity it is about: a meeting, a friend request, a conversation.
    public var subjectId: String
    /// Where the app opens it (`meetup://meetings/{id}`).
    public var deeplink: String
    /// Pushes of one thread are grouped on the phone (`thread-id`, collapse key).
    public var thread: String
    /// The named values of its localized title and body.
    public var arguments: [String: String]
    /// When it was made; a chat push takes the time its message was sent.
    public var createdAt: Date
    /// When its user marked it read; nil while unread.
    public var readAt: Date?

    /// The `notification` table.
    public static let databaseTableName = "notification"

    /// Keeps the inbox position SQLite gave the new row as ``seq``.
    public mutating func didInsert(_ inserted: InsertionSuccess) {
        seq = inserted.rowID
    }

    /// The localization keys of its title and body: `notification.<kind>.title` / `.body`;
    /// a chat push of several messages has its own title (`notification.chat.messages.title`).
    public var titleKey: String {
        kind == ChatPushes.kind && (Int(arguments["count"] ?? "") ?? 1) > 1 ? "notification.chat.messages.title" : "notification.\(kind).title"
    }
    /// The localization key of its body: `notification.<kind>.body`.
    public var bodyKey: String { "notification.\(kind).body" }

    /// A newer push with the same key replaces this one on the phone (`apns-collapse-id`, FCM
    /// `collapse_key` and `tag`): its thread's, but a room's chat pushes replace only each other.
    public var collapseKey: String {
        kind == ChatPushes.kind ? "chat.\(subjectId)" : thread
    }
}

/// Where a notification opens in the app.
public enum Deeplink {
    /// A meeting's page (`meetup://meetings/{id}`).
    public static func meeting(_ id: String) -> String { "meetup://meetings/\(id)" }
    /// A meeting's chat room, named by the meeting's id (`meetup://chat/{id}`).
    public static func chat(_ id: String) -> String { "meetup://chat/\(id)" }
    /// A direct conversation, named by the other member (the reader knows who they are).
    public static func direct(_ peerId: String) -> String { "meetup://direct/\(peerId)" }
    /// The list of friend requests waiting for the user.
    public static let friendRequests = "meetup://friends/requests"
}
