import Foundation
import GRDB
@testable import MeetCore

/// A fresh database file in a temporary folder, with users written straight into it so the
/// profile services can be tested without going through registration.
struct ProfilesFixture {
    let database: AppDatabase
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder("meetupd-profiles-")
        database = try AppDatabase(dataDirectory: folder.url.path)
    }

    var profiles: ProfileService { ProfileService(database: database, now: Date.init) }
    var locations: LocationService { LocationService(database: database, now: Date.init) }
    var activities: ActivityService { ActivityService(database: database, now: Date.init) }

    @discardableResult
    func addUser(_ displayName: String, confirmed: Bool = true, banned: Bool = false) async throws -> String {
        let id = RandomToken.id()
        try await database.writer.write { db in
            try db.execute(literal: """
                INSERT INTO user (id, email, displayName, locale, passwordHash, emailConfirmedAt, banned, createdAt)
                VALUES (\(id), \(id + "@example.org"), \(displayName), 'en', '', \(confirmed ? Date() : nil), \(banned), \(Date()))
                """)
        }
        return id
    }
}
