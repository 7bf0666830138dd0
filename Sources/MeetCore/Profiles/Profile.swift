import Foundation
import GRDB

/// What a user tells others about themselves. The display name lives with the account
/// (`user.displayName`); the rest in `profile` and `profileActivity`.
public struct Profile: Sendable, Equatable {
    /// The profile's user.
    public var userId: String
    /// The name other users see; kept on the account.
    public var displayName: String
    /// Free text about themselves, at most 500 characters; may be empty.
    public var bio: String
    /// `yyyy-MM-dd`; shown to its owner only, others see the age.
    public var birthDate: String?
    /// Where they live, as they wrote it; at most 100 characters.
    public var city: String?
    /// Id of their profile photo in the media store, if any.
    public var photoId: String?
    /// The activities they like; at most 30.
    public var activityIds: [String]
    /// BCP 47 language tags (`uk`, `en`, `pt-BR`) of the languages the user speaks.
    public var languages: [String]

    /// Full years since the birth date on `day`.
    public func age(on day: Date) -> Int? {
        guard let birthDate, let born = Profile.day(birthDate) else { return nil }
        return Profile.calendar.dateComponents([.year], from: born, to: day).year
    }
}

/// The stored part of a profile, apart from the display name and activities.
struct ProfileRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "profile"

    var userId: String
    var bio: String
    var birthDate: String?
    var city: String?
    var photoId: String?
    var languages: [String]
    var updatedAt: Date
}

extension Profile {
    /// Reads the profiles of `userIds` (users without a profile row get an empty one), in the
    /// order given; unknown ids are left out.
    static func fetchAll(_ db: Database, userIds: [String]) throws -> [Profile] {
        var activityIds: [String: [String]] = [:]
        for row in try Row.fetchAll(db, SQLRequest(literal: """
            SELECT userId, activityId FROM profileActivity WHERE userId IN \(userIds) ORDER BY activityId
            """)) {
            activityIds[row["userId"], default: []].append(row["activityId"])
        }
        let rows = try Row.fetchAll(db, SQLRequest(literal: """
            SELECT user.id, user.displayName, profile.bio, profile.birthDate, profile.city, profile.photoId,
                   profile.languages
            FROM user LEFT JOIN profile ON profile.userId = user.id
            WHERE user.id IN \(userIds)
            """))
        var profiles: [String: Profile] = [:]
        for row in rows {
            let languages: String = row["languages"] ?? "[]"
            let id: String = row["id"]
            profiles[id] = Profile(
                userId: id, displayName: row["displayName"], bio: row["bio"] ?? "",
                birthDate: row["birthDate"], city: row["city"], photoId: row["photoId"],
                activityIds: activityIds[id] ?? [],
                languages: try JSONDecoder().decode([String].self, from: Data(languages.utf8)))
        }
        return userIds.compactMap { profiles[$0] }
    }
}
