import Foundation
import GRDB

/// An activity of the catalog as moderators see it: both names, who proposed it, whether it is
/// hidden, and how many profiles and meetings use it.
public struct ModeratedActivity: Codable, Sendable, Equatable {
    /// The activity's id, as profiles and meetings name it.
    public var id: String
    /// English name, if it has one.
    public var nameEn: String?
    /// Ukrainian name, if it has one.
    public var nameUk: String?
    /// The user who proposed it; nil for the seeded catalog.
    public var proposedBy: String?
    /// Taken out of suggestions and refused for new uses by a moderator.
    public var hidden: Bool
    /// How many profiles list it.
    public var profiles: Int
    /// How many meetings are about it.
    public var meetings: Int
    /// When it was added to the catalog.
    public var createdAt: Date

    static let query = """
        SELECT a.id, a.nameEn, a.nameUk, a.proposedBy, a.hiddenAt IS NOT NULL AS hidden, a.createdAt,
            (SELECT count(*) FROM profileActivity WHERE activityId = a.id) AS profiles,
            (SELECT count(*) FROM meetingActivity WHERE activityId = a.id) AS meetings
        FROM activity AS a
        """

    init(row: Row) {
        id = row["id"]
        nameEn = row["nameEn"]
        nameUk = row["nameUk"]
        proposedBy = row["proposedBy"]
        hidden = row["hidden"]
        profiles = row["profiles"]
        meetings = row["meetings"]
        createdAt = row["createdAt"]
    }

    /// Both names, as the audit log keeps them.
    var names: String { "\(nameEn ?? "-") / \(nameUk ?? "-")" }
}

extension ModerationService {
    /// Activities whose English or Ukrainian name contains `search` (all when nil), the newest
    /// first (proposals before the seeded catalog), hidden ones included.
    public func activities(search: String? = nil, limit: Int = 50) async throws -> [ModeratedActivity] {
        try await database.reader.read { db in
            let pattern = search.map { "%" + $0.replacingOccurrences(of: "%", with: "") + "%" }
            return try Row.fetchAll(db, sql: """
                \(ModeratedActivity.query)
                WHERE ? IS NULL OR a.nameEn LIKE ? OR a.nameUk LIKE ?
                ORDER BY a.createdAt DESC, a.id LIMIT ?
                """, arguments: [pattern, pattern, pattern, limit]).map(ModeratedActivity.init(row:))
        }
    }

    /// Folds `sourceId` into `targetId` (``ActivityMerge``): every use moves, none twice, and
    /// the source leaves the catalog. Answers the target as it is after.
    public func mergeActivity(_ sourceId: String, into targetId: String, reason: String?, by moderator: Moderator) async throws -> ModeratedActivity {
        // The audit line is about the source, which is gone after: `audit list --target` finds it.
        try await changeActivity(targetId, action: "activity.merge", auditedAs: sourceId, by: moderator, reason: reason) { target, db in
            let source = try Self.findActivity(sourceId, in: db)
            guard source.id != target.id else { throw MeetError.noChange }
            let moved = try ActivityMerge.merge(source.id, into: target.id, in: db)
            return "\(source.names) into \(target.id) (\(target.names)): \(moved.profiles) profiles, \(moved.meetings) meetings moved, "
                + "\(moved.duplicates) duplicate uses dropped"
        }
    }

    /// Gives the activity a new English and/or Ukrainian name (normalized like a proposal);
    /// `activity.nameTaken` when another activity has (give or take a typo) that name: merge
    /// them instead.
    public func renameActivity(_ id: String, english: String?, ukrainian: String?, reason: String?, by moderator: Moderator) async throws
        -> ModeratedActivity
    {
        guard english != nil || ukrainian != nil else { throw MeetError.invalidField("nameEn", "field.required") }
        let english = try english.map(ActivityService.normalizedName)
        let ukrainian = try ukrainian.map(ActivityService.normalizedName)
        return try await changeActivity(id, action: "activity.rename", by: moderator, reason: reason) { activity, db in
            let renamed = (en: english ?? activity.nameEn, uk: ukrainian ?? activity.nameUk)
            guard renamed.en != activity.nameEn || renamed.uk != activity.nameUk else { throw MeetError.noChange }
            let keys = [english, ukrainian].compactMap { $0.map(SearchKey.init) }
            for other in try Activity.filter(Column("id") != activity.id).fetchAll(db) {
                if keys.contains(where: { key in other.searchKeys.contains { ActivityMatching.isNearDuplicate(key, of: $0) } }) {
                    throw MeetError("activity.nameTaken", status: 409, arguments: ["id": other.id])
                }
            }
            try db.execute(sql: "UPDATE activity SET nameEn = ?, nameUk = ? WHERE id = ?", arguments: [renamed.en, renamed.uk, activity.id])
            return "\(activity.names) → \(renamed.en ?? "-") / \(renamed.uk ?? "-")"
        }
    }

    /// Hides the activity (`hidden`) or shows it again: hidden, it keeps the uses it has but is
    /// no longer suggested, and new profiles and meetings get `activity.unknown` for it.
    public func setActivityHidden(_ id: String, _ hidden: Bool, reason: String?, by moderator: Moderator) async throws -> ModeratedActivity {
        let time = now()
        return try await changeActivity(id, action: hidden ? "activity.hide" : "activity.unhide", by: moderator, reason: reason) {
            activity, db in
            guard activity.hidden != hidden else { throw MeetError.noChange }
            try db.execute(sql: "UPDATE activity SET hiddenAt = ? WHERE id = ?", arguments: [hidden ? time : nil, activity.id])
            return nil
        }
    }

    /// Applies `apply` to the activity in one transaction with its audit line (about
    /// `auditedId`, the activity itself by default; its detail is what `apply` answers) and its
    /// change-log row, and answers the activity as it is after.
    private func changeActivity(
        _ id: String, action: String, auditedAs auditedId: String? = nil, by moderator: Moderator, reason: String?,
        _ apply: @escaping @Sendable (ModeratedActivity, Database) throws -> String?
    ) async throws -> ModeratedActivity {
        let time = now()
        return try await database.writer.write { db in
            let activity = try Self.findActivity(id, in: db)
            let detail = try apply(activity, db)
            let subject = auditedId ?? id
            try AuditLog.record(
                action, targetType: "activity", targetId: subject, by: moderator.name, reason: reason, detail: detail, in: db, at: time)
            try ChangeLog.record(.activity, subject: subject, detail: action, in: db, at: time)
            return try Self.findActivity(id, in: db)
        }
    }

    static func findActivity(_ id: String, in db: Database) throws -> ModeratedActivity {
        guard let row = try Row.fetchOne(db, sql: "\(ModeratedActivity.query) WHERE a.id = ?", arguments: [id]) else {
            throw MeetError("activity.notFound", status: 404)
        }
        return ModeratedActivity(row: row)
    }
}

extension ChangeTopic {
    /// A moderator merged, renamed, hid or showed an activity (subject: the activity id,
    /// detail: the audit action). Uses a merge moved reach the feed as `meeting` changes.
    public static let activity = ChangeTopic(rawValue: "activity")
}
