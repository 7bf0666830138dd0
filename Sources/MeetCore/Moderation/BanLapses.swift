import Foundation
import GRDB

extension ModerationService {
    /// Lifts every temporary ban whose end has come (the running server calls it every few
    /// seconds; login lifts a user's own at once), each with an audit line by `system`.
    /// Answers how many were lifted.
    public func liftLapsedBans() async throws -> Int {
        let time = now()
        // A read first: the writer is taken only when some ban has lapsed.
        let due = try await database.reader.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM user WHERE bannedUntil <= ?)", arguments: [time]) ?? false
        }
        guard due else { return 0 }
        return try await database.writer.write { db in try Self.liftLapsedBans(of: nil, in: db, at: time) }
    }

    /// Lifts the lapsed temporary bans in `db`'s transaction: all of them, or only `userId`'s.
    static func liftLapsedBans(of userId: String?, in db: Database, at time: Date) throws -> Int {
        let ids = try String.fetchAll(db, sql: "SELECT id FROM user WHERE bannedUntil <= ? AND (?2 IS NULL OR id = ?2)",
                                      arguments: [time, userId])
        for id in ids {
            try db.execute(sql: "UPDATE user SET banned = 0, banReason = NULL, bannedUntil = NULL WHERE id = ?", arguments: [id])
            try AuditLog.record("user.banLapsed", targetType: "user", targetId: id, by: "system", in: db, at: time)
        }
        return ids.count
    }
}

extension AccountService {
    /// Whether `userId`'s ban is over (lifted here if it has lapsed), so login may go on.
    func liftBanIfLapsed(_ userId: String, at time: Date) async throws -> Bool {
        try await database.writer.write { db in
            _ = try ModerationService.liftLapsedBans(of: userId, in: db, at: time)
            // The server's sweep may have lifted it since login read the user.
            return try Bool.fetchOne(db, sql: "SELECT NOT banned FROM user WHERE id = ?", arguments: [userId]) ?? false
        }
    }
}
