import Foundation
import GRDB

/// Counts a moderator looks at: how big the community is and how busy.
public struct ModerationStats: Codable, Sendable, Equatable {
    /// Messages of one UTC day.
    public struct Day: Codable, Sendable, Equatable {
        /// The UTC date, `YYYY-MM-DD`.
        public var day: String
        /// Messages stored that day, of every kind.
        public var messages: Int
    }

    /// Every account, banned and unconfirmed ones included.
    public var users: Int
    /// Accounts whose email address is confirmed.
    public var confirmedUsers: Int
    /// Accounts banned now.
    public var bannedUsers: Int
    /// Accounts with the moderator role.
    public var moderators: Int
    /// Every meeting, cancelled and past ones included.
    public var meetings: Int
    /// Meetings not cancelled that have not started yet.
    public var upcomingMeetings: Int
    /// Reports no moderator has resolved.
    public var openReports: Int
    /// The last seven days with messages, newest first.
    public var messagesPerDay: [Day]
}

/// The database's figures with the running server's, as one JSON object: what `admin stats
/// --json` prints and `GET /admin/stats` answers. `live` is null when no server answered.
public struct ModerationStatsReport: Encodable, Sendable, Equatable {
    /// The database's counts.
    public var stats: ModerationStats
    /// The running server's figures; null when no server answered.
    public var live: ServerLiveFigures?

    /// Pairs the database's counts with the running server's figures, if any.
    public init(stats: ModerationStats, live: ServerLiveFigures?) {
        self.stats = stats
        self.live = live
    }

    private enum Key: String, CodingKey { case live }

    /// The figures of `stats` flat beside `live`, which is written even when null.
    public func encode(to encoder: any Encoder) throws {
        try stats.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(live, forKey: .live)
    }
}

extension ModerationService {
    /// What `stats` shows.
    public func stats() async throws -> ModerationStats {
        let time = now().timeIntervalSince1970
        return try await database.reader.read { db in
            func count(_ sql: String, _ arguments: StatementArguments = []) throws -> Int {
                try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
            }
            let days = try Row.fetchAll(db, sql: """
                SELECT date(sentAt, 'unixepoch') AS day, count(*) AS messages FROM chatMessage
                WHERE sentAt >= ? GROUP BY day ORDER BY day DESC
                """, arguments: [time - 7 * 86_400]).map { ModerationStats.Day(day: $0["day"], messages: $0["messages"]) }
            return ModerationStats(
                users: try count("SELECT count(*) FROM user"),
                confirmedUsers: try count("SELECT count(*) FROM user WHERE emailConfirmedAt IS NOT NULL"),
                bannedUsers: try count("SELECT count(*) FROM user WHERE banned"),
                moderators: try count("SELECT count(*) FROM user WHERE role = 'moderator'"),
                meetings: try count("SELECT count(*) FROM meeting"),
                upcomingMeetings: try count("SELECT count(*) FROM meeting WHERE cancelledAt IS NULL AND startsAt >= ?", [time]),
                openReports: try count("SELECT count(*) FROM report WHERE status = 'open'"),
                messagesPerDay: days)
        }
    }

    /// SQLite's integrity check: `["ok"]` for a sound file, else one line per problem.
    public func checkDatabase() async throws -> [String] {
        try await database.reader.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// Copies the whole database to a new file at `path` through SQLite's online backup API,
    /// from one read snapshot: consistent however much the server writes meanwhile.
    public func backup(to path: String) async throws {
        guard !FileManager.default.fileExists(atPath: path) else { throw MeetError.backupExists }
        let destination = try DatabaseQueue(path: path)
        // In one step (all pages at once) inside one read transaction: a write
        // between steps would restart the copy.
        try database.reader.backup(to: destination)
        try destination.close()
    }

}

extension MeetError {
    /// `db backup` never overwrites a file.
    static let backupExists = MeetError("backup.fileExists", status: 409)
}
