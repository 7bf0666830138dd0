import Foundation
import GRDB

/// Someone as the friend graph shows them.
public struct FriendUser: Codable, Sendable, Equatable, FetchableRecord {
    /// The user's id.
    public var id: String
    /// The name other users see.
    public var displayName: String
}

/// A friend request as its sender and its recipient see it.
public struct FriendRequest: Codable, Sendable, Equatable {
    /// Where a request stands.
    public enum Status: String, Codable, Sendable {
        /// Waiting for the recipient.
        case pending
        /// The two are friends now (sending a request to someone who had already asked you
        /// accepts theirs).
        case accepted
    }

    /// Opaque id, used to accept or decline it.
    public var id: String
    /// Who asked.
    public var from: FriendUser
    /// Who was asked.
    public var to: FriendUser
    /// Whether it waits or was accepted.
    public var status: Status
    /// When it was sent.
    public var createdAt: Date
}

/// One of my friends.
public struct Friend: Codable, Sendable, Equatable, FetchableRecord {
    /// The friend's user id.
    public var id: String
    /// The friend's display name.
    public var displayName: String
    /// When the request was accepted.
    public var since: Date
}

/// Someone I might know, with the reasons.
public struct FriendSuggestion: Codable, Sendable, Equatable, FetchableRecord {
    /// The suggested user's id.
    public var id: String
    /// The suggested user's display name.
    public var displayName: String
    /// Friends we have in common.
    public var mutualFriends: Int
    /// Activities both our profiles list.
    public var sharedActivities: Int
}

/// A pending request as stored.
struct FriendRequestRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "friendRequest"

    var id: String
    var fromUserId: String
    var toUserId: String
    var createdAt: Date
}
