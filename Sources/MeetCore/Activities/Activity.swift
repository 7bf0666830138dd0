import Foundation
import GRDB

/// Something people do together ("Hiking", "Board games"), named in English, Ukrainian or both.
/// The seeded catalog has both names; an activity a user proposed has the one they typed.
public struct Activity: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    /// The `activity` table.
    public static let databaseTableName = "activity"

    /// Opaque id, as profiles and meetings name it.
    public var id: String
    /// English name, if it has one.
    public var nameEn: String?
    /// Ukrainian name, if it has one.
    public var nameUk: String?
    /// The user who proposed it; nil for the seeded catalog (and once that user is gone).
    public var proposedBy: String?
    /// When it was added to the catalog.
    public var createdAt: Date

    /// The name in `language`, or in the other language when it has none there.
    public func name(in language: String) -> String {
        let preferred = language == "uk" ? nameUk : nameEn
        return preferred ?? nameEn ?? nameUk ?? id
    }

    /// The names a search or a duplicate check compares against.
    var searchKeys: [SearchKey] {
        [nameEn, nameUk].compactMap { $0.map(SearchKey.init) }
    }
}

/// An activity as one reader sees it: named in their language, with how many profiles and
/// meetings use it.
public struct ActivitySuggestion: Sendable, Equatable {
    /// The activity's id.
    public var id: String
    /// Its name in the reader's language (or the other one when it has none there).
    public var name: String
    /// How many profiles and meetings use it; suggestions rank by it.
    public var popularity: Int
}
