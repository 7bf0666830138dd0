import Foundation
import GRDB

/// Promos: operators add them, each user gets at most one at a time until they dismiss it.
public struct PromoService: Sendable {
    static let promoNotFound = MeetError("promo.notFound", status: 404)

    let database: AppDatabase
    let now: @Sendable () -> Date

    /// A service on `database`; `now` dates pushes and decides which promos are running.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }

    /// Stores a new promo.
    /// - Throws: `request.invalidFields`; `meetingId` `meeting.notFound` unless it names a
    ///   public meeting (a promo must not reveal a private one).
    public func add(_ draft: PromoDraft, by actor: String) async throws -> Promo {
        let (startsAt, endsAt) = try draft.validated()
        let id = RandomToken.id()
        let time = now()
        try await database.writer.write { db in
            if let meeting = draft.meetingId {
                let isPublic = try Bool.fetchOne(
                    db, sql: "SELECT visibility = 'public' FROM meeting WHERE id = ?", arguments: [meeting]) ?? false
                guard isPublic else { throw MeetError.invalidField("meetingId", "meeting.notFound") }
            }
            try db.execute(
                sql: """
                    INSERT INTO promo (id, title, text, imageMediaId, deeplink, meetingId, startsAt, endsAt, audience,
                                       priority, createdBy, createdAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, draft.title.trimmingCharacters(in: .whitespaces), draft.text, draft.imageMediaId, draft.deeplink,
                    draft.meetingId, startsAt.timeIntervalSince1970, endsAt.timeIntervalSince1970,
                    draft.audience.map { String(decoding: $0.canonicalJSON(), as: UTF8.self) }, draft.priority ?? 0, actor,
                    time.timeIntervalSince1970,
                ])
            try AuditLog.record("promo.add", targetType: "promo", targetId: id, by: actor, reason: draft.title, in: db, at: time)
        }
        return try await promo(id)
    }

    /// Every promo with its counts, newest first.
    public func all() async throws -> [Promo] {
        try await database.reader.read { db in try Self.promos(db, where: "1") }
    }

    /// The promo `client` (signed in) should see now, if any, counted as shown to them: the
    /// running one of highest priority (then newest) whose audience holds and that they have
    /// not dismissed.
    public func current(for client: ConfigClient) async throws -> Promo? {
        guard let user = client.userId else { return nil }
        let time = now()
        return try await database.writer.write { db in
            let running = try Self.promos(db, where: """
                p.startsAt <= \(time.timeIntervalSince1970) AND \(time.timeIntervalSince1970) < p.endsAt
                AND NOT EXISTS (SELECT 1 FROM promoView d WHERE d.promoId = p.id AND d.userId = \(user) AND d.dismissedAt IS NOT NULL)
                """)
            guard let promo = running.first(where: { $0.audience.flatMap(ConfigCondition.init)?.holds(for: client) ?? true }) else {
                return nil
            }
            try db.execute(
                sql: "INSERT OR IGNORE INTO promoView (promoId, userId, shownAt) VALUES (?, ?, ?)",
                arguments: [promo.id, user, time.timeIntervalSince1970])
            return promo
        }
    }

    /// Never shows `id` to `user` again.
    /// - Throws: `promo.notFound` (404).
    public func dismiss(_ id: String, by user: String) async throws {
        let time = now().timeIntervalSince1970
        try await database.writer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM promo WHERE id = ?", arguments: [id]) != nil else { throw Self.promoNotFound }
            try db.execute(
                sql: """
                    INSERT INTO promoView (promoId, userId, shownAt, dismissedAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT (promoId, userId) DO UPDATE SET dismissedAt = coalesce(dismissedAt, excluded.dismissedAt)
                    """,
                arguments: [id, user, time, time])
        }
    }

    private func promo(_ id: String) async throws -> Promo {
        try await database.reader.read { db in
            guard let promo = try Self.promos(db, where: "p.id = \(id)").first else { throw Self.promoNotFound }
            return promo
        }
    }

    private static func promos(_ db: Database, where condition: SQL) throws -> [Promo] {
        let request = SQLRequest<Row>(literal: """
            SELECT p.*, (SELECT count(*) FROM promoView v WHERE v.promoId = p.id) AS impressions,
                   (SELECT count(*) FROM promoView v WHERE v.promoId = p.id AND v.dismissedAt IS NOT NULL) AS dismissals
            FROM promo p WHERE \(condition) ORDER BY p.priority DESC, p.createdAt DESC
            """)
        return try request.fetchAll(db).map { row in
            Promo(
                id: row["id"], title: row["title"], text: row["text"], imageMediaId: row["imageMediaId"],
                deeplink: row["deeplink"], meetingId: row["meetingId"],
                startsAt: Date(timeIntervalSince1970: row["startsAt"]), endsAt: Date(timeIntervalSince1970: row["endsAt"]),
                audience: (row["audience"] as String?).flatMap { try? JSONDecoder().decode(ConfigValue.self, from: Data($0.utf8)) },
                priority: row["priority"], impressions: row["impressions"], dismissals: row["dismissals"])
        }
    }
}
