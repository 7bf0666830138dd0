import Foundation
import GRDB

/// Friend requests, friendships and blocks.
///
/// Blocking is absolute: a user who blocked me, or whom I blocked, is answered for exactly
/// as if they did not exist (`user.notFound`), so a request never reveals a block.
public struct FriendService: Sendable {
    /// My requests in both directions.
    public struct Requests: Codable, Sendable, Equatable {
        /// Sent to me, newest first.
        public var incoming: [FriendRequest]
        /// Sent by me, newest first.
        public var outgoing: [FriendRequest]
    }

    static let userNotFound = MeetError("user.notFound", status: 404)
    static let requestNotFound = MeetError("friendRequest.notFound", status: 404)

    let database: AppDatabase
    let now: @Sendable () -> Date

    /// A service on `database` that dates requests and friendships with `now`.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }

    /// Asks `userId` to be my friend. Asking again returns the pending request; asking
    /// someone who has already asked me accepts their request instead.
    /// - Throws: `user.notFound` (also for a user either of us blocked, or one who cannot be
    ///   seen: unconfirmed or banned),
    ///   `friend.self` (422), `friend.alreadyFriends` (409).
    public func sendRequest(from me: String, to userId: String) async throws -> FriendRequest {
        try await database.writer.write { [now] db in
            guard userId != me else {
                throw MeetError("friend.self", status: 422, fieldProblems: [.init(field: "userId", code: "friend.self")])
            }
            guard try Self.isVisible(userId, to: me, db) else { throw Self.userNotFound }
            guard try !Self.areFriends(me, userId, db) else { throw MeetError("friend.alreadyFriends", status: 409) }
            if let theirs = try Self.pendingRequest(from: userId, to: me, db) {
                return try Self.accept(theirs, at: now(), db)
            }
            if let mine = try Self.pendingRequest(from: me, to: userId, db) {
                return try Self.view(of: mine, status: .pending, db)
            }
            let record = FriendRequestRecord(id: RandomToken.id(), fromUserId: me, toUserId: userId, createdAt: now())
            try record.insert(db)
            let request = try Self.view(of: record, status: .pending, db)
            try DomainEvent.friendRequest(.friendRequestSent, request, actor: request.from).record(in: db, at: record.createdAt)
            return request
        }
    }

    /// The pending requests sent to me and by me.
    public func requests(of me: String) async throws -> Requests {
        try await database.quickRead { db in
            Requests(
                incoming: try Self.views(where: "friendRequest.toUserId = \(me)", status: .pending, db),
                outgoing: try Self.views(where: "friendRequest.fromUserId = \(me)", status: .pending, db))
        }
    }

    /// Accepts a request sent to me: we are friends from now on.
    /// - Throws: `friendRequest.notFound` unless the request is pending and addressed to me.
    public func accept(request id: String, by me: String) async throws -> FriendRequest {
        try await database.writer.write { [now] db in
            try Self.accept(try Self.request(id, to: me, db), at: now(), db)
        }
    }

    /// Declines a request sent to me. The sender is not told.
    /// - Throws: `friendRequest.notFound` unless the request is pending and addressed to me.
    public func decline(request id: String, by me: String) async throws {
        try await database.writer.write { db in
            _ = try Self.request(id, to: me, db).delete(db)
        }
    }

    /// Withdraws a request I sent.
    /// - Throws: `friendRequest.notFound` unless the request is pending and mine.
    public func cancel(request id: String, by me: String) async throws {
        try await database.writer.write { [now] db in
            guard let record = try FriendRequestRecord.fetchOne(db, key: id), record.fromUserId == me else {
                throw Self.requestNotFound
            }
            let request = try Self.view(of: record, status: .pending, db)
            _ = try record.delete(db)
            try DomainEvent.friendRequest(.friendRequestCancelled, request, actor: request.from).record(in: db, at: now())
        }
    }

    /// My friends, by name.
    public func friends(of me: String) async throws -> [Friend] {
        try await database.quickRead { db in
            try Friend.fetchAll(db, sql: """
                SELECT user.id, user.displayName, friendship.since
                FROM friendship JOIN user ON user.id = friendship.friendId
                WHERE friendship.userId = ?
                ORDER BY user.displayName COLLATE NOCASE, user.id
                """, arguments: [me])
        }
    }

    /// Ends a friendship, for both.
    /// - Throws: `friend.notFriends` (404) when we are not friends.
    public func unfriend(_ userId: String, by me: String) async throws {
        try await database.writer.write { db in
            guard try Self.areFriends(me, userId, db) else { throw MeetError("friend.notFriends", status: 404) }
            try Self.separate(me, userId, db)
        }
    }

    /// Blocks `userId`: ends our friendship and any request between us, the invitations and
    /// memberships that joined us through a meeting (``MeetingBlocks``), and hides each of us
    /// from the other. Blocking twice changes nothing.
    /// - Throws: `user.notFound`, `friend.self` (422).
    public func block(_ userId: String, by me: String) async throws {
        try await database.writer.write { [now] db in
            guard userId != me else {
                throw MeetError("friend.self", status: 422, fieldProblems: [.init(field: "userId", code: "friend.self")])
            }
            guard try Self.userExists(userId, db) else { throw Self.userNotFound }
            let time = now()
            try db.execute(
                sql: "INSERT OR IGNORE INTO block (blockerId, blockedId, createdAt) VALUES (?, ?, ?)",
                arguments: [me, userId, time])
            try Self.separate(me, userId, db)
            try MeetingBlocks.separate(me, userId, at: time, in: db)
        }
    }

    /// Lifts my block of `userId` (a block they made of me stays).
    /// - Throws: `block.notFound` (404) when I have not blocked them.
    public func unblock(_ userId: String, by me: String) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM block WHERE blockerId = ? AND blockedId = ?", arguments: [me, userId])
            guard db.changesCount > 0 else { throw MeetError("block.notFound", status: 404) }
        }
    }

    /// The users I have blocked, most recent first.
    public func blocked(by me: String) async throws -> [FriendUser] {
        try await database.quickRead { db in
            try FriendUser.fetchAll(db, sql: """
                SELECT user.id, user.displayName FROM block JOIN user ON user.id = block.blockedId
                WHERE block.blockerId = ? ORDER BY block.createdAt DESC, user.id
                """, arguments: [me])
        }
    }

    // MARK: - Inside a transaction

    /// Whether `viewer` may see `id` at all (confirmed, not banned, neither blocked the other).
    static func isVisible(_ id: String, to viewer: String, _ db: Database) throws -> Bool {
        try SQLRequest<Bool>(literal: """
            SELECT EXISTS (SELECT 1 FROM user WHERE id = \(id) AND \(UserVisibility.visible(to: viewer)))
            """).fetchOne(db) ?? false
    }

    static func userExists(_ id: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM user WHERE id = ?)", arguments: [id]) ?? false
    }

    static func areFriends(_ a: String, _ b: String, _ db: Database) throws -> Bool {
        // Cached: every direct message asks it inside the chat's group commit.
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM friendship WHERE userId = ? AND friendId = ?)"),
                          arguments: [a, b]) ?? false
    }

    static func pendingRequest(from sender: String, to recipient: String, _ db: Database) throws -> FriendRequestRecord? {
        try FriendRequestRecord.fetchOne(db, sql: "SELECT * FROM friendRequest WHERE fromUserId = ? AND toUserId = ?", arguments: [sender, recipient])
    }

    static func request(_ id: String, to me: String, _ db: Database) throws -> FriendRequestRecord {
        guard let request = try FriendRequestRecord.fetchOne(db, key: id), request.toUserId == me else {
            throw requestNotFound
        }
        return request
    }

    /// Accepts `record` on behalf of its recipient and tells its sender.
    static func accept(_ record: FriendRequestRecord, at time: Date, _ db: Database) throws -> FriendRequest {
        let request = try view(of: record, status: .accepted, db)
        try befriend(record, at: time, db)
        try DomainEvent.friendRequest(.friendRequestAccepted, request, actor: request.to).record(in: db, at: time)
        return request
    }

    /// Makes the two users of `request` friends and clears the requests between them.
    static func befriend(_ request: FriendRequestRecord, at time: Date, _ db: Database) throws {
        for (user, friend) in [(request.fromUserId, request.toUserId), (request.toUserId, request.fromUserId)] {
            try db.execute(
                sql: "INSERT OR IGNORE INTO friendship (userId, friendId, since) VALUES (?, ?, ?)",
                arguments: [user, friend, time])
        }
        try deleteRequests(between: request.fromUserId, request.toUserId, db)
    }

    /// Ends the friendship and the requests between `a` and `b`, whichever exist.
    static func separate(_ a: String, _ b: String, _ db: Database) throws {
        try db.execute(sql: """
            DELETE FROM friendship WHERE (userId = ? AND friendId = ?) OR (userId = ? AND friendId = ?)
            """, arguments: [a, b, b, a])
        try deleteRequests(between: a, b, db)
    }

    static func deleteRequests(between a: String, _ b: String, _ db: Database) throws {
        try db.execute(sql: """
            DELETE FROM friendRequest WHERE (fromUserId = ? AND toUserId = ?) OR (fromUserId = ? AND toUserId = ?)
            """, arguments: [a, b, b, a])
    }

    /// The request as its users see it; read before it is deleted.
    static func view(of request: FriendRequestRecord, status: FriendRequest.Status, _ db: Database) throws -> FriendRequest {
        guard let view = try views(where: "friendRequest.id = \(request.id)", status: status, db).first else {
            throw requestNotFound
        }
        return view
    }

    /// The requests matching `condition`, with both users' names, newest first.
    static func views(where condition: SQL, status: FriendRequest.Status, _ db: Database) throws -> [FriendRequest] {
        try SQLRequest<Row>(literal: """
            SELECT friendRequest.id, friendRequest.createdAt,
                   sender.id AS senderId, sender.displayName AS senderName,
                   recipient.id AS recipientId, recipient.displayName AS recipientName
            FROM friendRequest
            JOIN user AS sender ON sender.id = friendRequest.fromUserId
            JOIN user AS recipient ON recipient.id = friendRequest.toUserId
            WHERE \(condition)
            ORDER BY friendRequest.createdAt DESC, friendRequest.id
            """).fetchAll(db).map { row in
            FriendRequest(
                id: row["id"],
                from: FriendUser(id: row["senderId"], displayName: row["senderName"]),
                to: FriendUser(id: row["recipientId"], displayName: row["recipientName"]),
                status: status, createdAt: row["createdAt"])
        }
    }
}
