import Foundation
import GRDB

/// Finds activities as people type them and takes in the ones they propose.
public struct ActivityService: Sendable {
    /// Bounds of a proposed name, in characters.
    public static let nameLength = 2...40
    /// Bounds of `limit` for suggestions.
    public static let suggestionLimit = 1...50

    /// Tables that link something to an activity by `activityId`; an activity's popularity is
    /// how many rows of them name it.
    static let usageTables = ["profileActivity", "meetingActivity"]

    let database: AppDatabase
    /// Dates proposed activities.
    let now: @Sendable () -> Date

    /// A service on `database` that dates proposed activities with `now`.
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }

    /// Activities whose English or Ukrainian name starts with `query` (or a later word does),
    /// also with a typo or two, best match first and, among equals, the most used first.
    /// Names are given in `language`. Activities moderators hid are never suggested.
    public func suggestions(matching query: String, language: String, limit: Int) async throws -> [ActivitySuggestion] {
        guard Self.suggestionLimit.contains(limit) else { throw SearchQuery.outOfRange("limit", Self.suggestionLimit) }
        let key = SearchKey(try SearchQuery.typed(query))
        let (activities, popularity) = try await database.reader.read { db in
            (try Activity.filter(sql: "hiddenAt IS NULL").fetchAll(db), try Self.popularity(db))
        }
        return activities
            .compactMap { activity in
                ActivityMatching.rank(of: activity, for: key).map { rank in
                    let suggestion = ActivitySuggestion(
                        id: activity.id, name: activity.name(in: language), popularity: popularity[activity.id] ?? 0)
                    return (rank: rank, suggestion: suggestion)
                }
            }
            .sorted {
                ($0.rank, -$0.suggestion.popularity, $0.suggestion.name) < ($1.rank, -$1.suggestion.popularity, $1.suggestion.name)
            }
            .prefix(limit)
            .map(\.suggestion)
    }

    /// Adds an activity under the name a user typed, unless it is (give or take a typo) the
    /// name of one we have in either language: then that one is returned, with `created` false.
    /// The name of an activity moderators hid is refused (`activity.hidden`).
    public func propose(name: String, language: String, by userId: String) async throws -> (activity: ActivitySuggestion, created: Bool) {
        let name = try Self.normalizedName(name)
        let key = SearchKey(name)
        return try await database.writer.write { [now] db in
            let popularity = try Self.popularity(db)
            let hidden = try String.fetchSet(db, sql: "SELECT id FROM activity WHERE hiddenAt IS NOT NULL")
            let near = try Activity.fetchAll(db).filter { $0.searchKeys.contains { ActivityMatching.isNearDuplicate(key, of: $0) } }
            // A hidden near-twin refuses the name only when no offered activity answers to it.
            if let existing = near.first(where: { !hidden.contains($0.id) }) {
                return (ActivitySuggestion(id: existing.id, name: existing.name(in: language), popularity: popularity[existing.id] ?? 0), false)
            }
            guard near.isEmpty else { throw MeetError("activity.hidden", status: 409) }
            let isUkrainian = name.unicodeScalars.contains { (0x0400...0x04FF).contains($0.value) }
            let activity = Activity(
                id: RandomToken.id(), nameEn: isUkrainian ? nil : name, nameUk: isUkrainian ? name : nil,
                proposedBy: userId, createdAt: now())
            try activity.insert(db)
            return (ActivitySuggestion(id: activity.id, name: activity.name(in: language), popularity: 0), true)
        }
    }

    /// The ids among `ids` that may not be used: those that name no activity, and those of
    /// activities moderators hid unless among `current` (a use that was there before the hiding
    /// stays).
    static func unusableIds(_ ids: [String], keeping current: [String] = [], in db: Database) throws -> Set<String> {
        let usable = try String.fetchSet(db, SQLRequest<String>(literal: """
            SELECT id FROM activity WHERE id IN \(ids) AND (hiddenAt IS NULL OR id IN \(current))
            """))
        return Set(ids).subtracting(usable)
    }

    /// How many profiles and meetings use each activity.
    static func popularity(_ db: Database) throws -> [String: Int] {
        let uses = usageTables.map { "SELECT activityId FROM \($0)" }.joined(separator: " UNION ALL ")
        let rows = try Row.fetchAll(db, sql: "SELECT activityId, COUNT(*) AS uses FROM (\(uses)) GROUP BY activityId")
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["activityId"], $0["uses"]) })
    }

    /// The name as it will be stored: spaces trimmed and collapsed, the first letter capitalized;
    /// letters, digits, spaces, hyphens, apostrophes and `&` only.
    static func normalizedName(_ raw: String) throws -> String {
        let words = raw.precomposedStringWithCanonicalMapping.split(whereSeparator: \.isWhitespace)
        var name = words.joined(separator: " ")
        let allowed = CharacterSet.letters.union(.decimalDigits).union(.nonBaseCharacters).union(CharacterSet(charactersIn: " -'’ʼ&"))
        guard nameLength.contains(name.count),
              name.unicodeScalars.allSatisfy(allowed.contains),
              name.contains(where: \.isLetter) else {
            throw MeetError("activity.invalid", status: 422, arguments: [
                "min": String(nameLength.lowerBound), "max": String(nameLength.upperBound),
            ], fieldProblems: [.init(field: "name", code: "field.invalid")])
        }
        if let first = name.first, first.isLowercase {
            name = first.uppercased() + name.dropFirst()
        }
        return name
    }
}
