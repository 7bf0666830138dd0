import Foundation
import GRDB

/// Someone as the friend graph shows them.
public struct FriendUser: Codable, Sendable, Equatable, FetchableRecord {
    public var id: String
    public var displayName: String
}

/// A friend request as its sender and its recipient see it.
public struct FriendRequest: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        /// Waiting for the recipient.
        case pending
        /// The two are friends now (sending a request to someone who had already asked you
        /// accepts theirs).
        case accepted
    }

    public var id: String
    public var from: FriendUser
    public var to: FriendUser
    public var status: Status
    public var createdAt: Date
}

/// One of my friends.
public struct Friend: Codable, Sendable, Equatable, FetchableRecord {
    public var id: String
    public var displayName: String
    /// When the request was accepted.
    public var since: Date
}

/// Someone I might know, with the reasons.
public struct FriendSuggestion: Codable, Sendable, Equatable, FetchableRecord {
    public var id: String
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
