import GRDB

/// The one rule every area applies to blocked users: if either of two users has blocked the
/// other, neither sees the other anywhere (search, nearby, invitations, chat, direct messages).
///
/// ```swift
/// let people = try SQLRequest<Row>(literal: """
///     SELECT id, displayName FROM user WHERE \(Blocks.neitherBlocked(viewer, "user.id"))
///     """).fetchAll(db)
/// ```
public enum Blocks {
    /// Whether `a` has blocked `b` or `b` has blocked `a`.
    static func isBlocked(_ db: Database, _ a: String, _ b: String) throws -> Bool {
        try SQLRequest<Bool>(literal: "SELECT NOT \(neitherBlocked(a, SQL(sql: "?", arguments: [b])))").fetchOne(db) ?? false
    }

    /// An SQL condition that holds when neither `viewer` nor the user in column (or
    /// expression) `other` has blocked the other; `viewer` is bound as an argument.
    public static func neitherBlocked(_ viewer: String, _ other: SQL) -> SQL {
        """
        NOT EXISTS (SELECT 1 FROM block WHERE (blockerId = \(viewer) AND blockedId = \(other)) \
        OR (blockerId = \(other) AND blockedId = \(viewer)))
        """
    }
}
