import GRDB

extension DomainEvent.Kind {
    /// Someone sent a friend request; its recipient is told.
    public static let friendRequestSent = Self(rawValue: "friendRequest.sent")
    /// The recipient accepted a request; its sender is told.
    public static let friendRequestAccepted = Self(rawValue: "friendRequest.accepted")
    /// The sender withdrew it: a notification about it can be taken back.
    public static let friendRequestCancelled = Self(rawValue: "friendRequest.cancelled")
}

/// The payload of every friend-request event: enough for "Anna wants to be your friend"
/// without querying again, and who should be told. (A declined request records nothing:
/// its sender is not told.)
public struct FriendEventPayload: Codable, Sendable, Equatable {
    /// The request the event is about.
    public var requestId: String
    /// Who sent the request.
    public var fromUserId: String
    /// Who received the request.
    public var toUserId: String
    /// Who did it, and their name as shown to the recipient.
    public var actorId: String
    /// The actor's display name at the time, for the notification text.
    public var actorName: String
    /// The users to tell: the other one of the two.
    public var recipients: [String]
}

extension DomainEvent {
    /// An event about `request`, done by `actor` and told to the other user.
    static func friendRequest(_ kind: Kind, _ request: FriendRequest, actor: FriendUser) throws -> DomainEvent {
        let other = actor.id == request.from.id ? request.to.id : request.from.id
        return try DomainEvent(kind, payload: FriendEventPayload(
            requestId: request.id, fromUserId: request.from.id, toUserId: request.to.id,
            actorId: actor.id, actorName: actor.displayName, recipients: [other]))
    }
}
