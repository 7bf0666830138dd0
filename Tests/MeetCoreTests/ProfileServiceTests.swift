import Foundation
import GRDB
import Testing
@testable import MeetCore

@Suite struct ProfileServiceTests {
    let fixture: ProfilesFixture

    init() throws {
        fixture = try ProfilesFixture()
    }

    @Test func updateReplacesTheProfileAndTheDisplayName() async throws {
        let olena = try await fixture.addUser("Olena")
        let form = try Profile(
            validating: olena, displayName: "  Olena K. ", bio: "Hikes on weekends ", birthDate: "1990-04-12", city: "Lviv",
            activityIds: ["hiking", "yoga", "hiking"], languages: ["UK", "en", "uk"], today: Date())
        let saved = try await fixture.profiles.update(form)
        #expect(saved == Profile(
            userId: olena, displayName: "Olena K.", bio: "Hikes on weekends", birthDate: "1990-04-12", city: "Lviv",
            photoId: nil, activityIds: ["hiking", "yoga"], languages: ["uk", "en"]))
        #expect(try await fixture.profiles.profile(of: olena) == saved)

        let emptied = try await fixture.profiles.update(try Profile(validating: olena, displayName: "Olena", today: Date()))
        #expect(emptied.activityIds.isEmpty && emptied.birthDate == nil && emptied.bio.isEmpty)
    }

    @Test func everyInvalidFieldIsReportedWithTheCount() throws {
        let today = ISO8601DateFormatter().date(from: "2026-06-01T00:00:00Z")!
        let error = try #require(throws: MeetError.self) {
            try Profile(
                validating: "u", displayName: " ", bio: String(repeating: "a", count: 501), birthDate: "2026-02-30",
                photoId: "../etc/passwd", languages: ["en", "english!"], today: today)
        }
        #expect(error.code == "profile.invalid")
        #expect(error.status == 422)
        #expect(error.arguments["count"] == "5")
        #expect(error.fieldProblems.map(\.field) == ["displayName", "bio", "birthDate", "photoId", "languages.1"])
        #expect(throws: MeetError.self) { try Profile(validating: "u", displayName: "A", birthDate: "2026-06-02", today: today) }
        #expect(throws: MeetError.self) { try Profile(validating: "u", displayName: "A", birthDate: "1899-12-31", today: today) }
        #expect(try Profile(validating: "u", displayName: "A", birthDate: "2026-06-01", today: today).birthDate == "2026-06-01")
    }

    @Test func unknownActivitiesAreNamedByPosition() async throws {
        let user = try await fixture.addUser("Taras")
        let error = try await #require(throws: MeetError.self) {
            try await fixture.profiles.update(try Profile(validating: user, displayName: "Taras", activityIds: ["yoga", "no-such"], today: Date()))
        }
        #expect(error.fieldProblems == [.init(field: "activityIds.1", code: "activity.unknown")])
        #expect(try await fixture.profiles.profile(of: user).activityIds.isEmpty, "nothing was written")
    }

    @Test func ageIsInFullYears() {
        let profile = Profile(
            userId: "u", displayName: "U", bio: "", birthDate: "2000-06-02", city: nil, photoId: nil, activityIds: [], languages: [])
        #expect(profile.age(on: ISO8601DateFormatter().date(from: "2026-06-01T12:00:00Z")!) == 25)
        #expect(profile.age(on: ISO8601DateFormatter().date(from: "2026-06-02T00:00:00Z")!) == 26)
    }

    @Test func othersSeeOnlyConfirmedUnbannedUsers() async throws {
        let viewer = try await fixture.addUser("Viewer")
        let unconfirmed = try await fixture.addUser("Ghost", confirmed: false)
        let banned = try await fixture.addUser("Spammer", banned: true)
        let visible = try await fixture.addUser("Iryna")
        #expect(try await fixture.profiles.profile(of: visible, seenBy: viewer).displayName == "Iryna")
        for hidden in [unconfirmed, banned, "no-such-user"] {
            await #expect(throws: ProfileService.notFound) { try await fixture.profiles.profile(of: hidden, seenBy: viewer) }
        }
    }

    @Test func searchFindsWordPrefixesInAnyScriptAndPagesByCursor() async throws {
        let viewer = try await fixture.addUser("Viewer")
        for name in ["Олена Коваль", "Oleh Kovalenko", "Olena Shevchenko", "Zoë Olander", "Petro Bondar"] {
            try await fixture.addUser(name)
        }
        func names(_ query: String) async throws -> [String] {
            try await fixture.profiles.searchUsers(matching: query, seenBy: viewer, after: nil, limit: 10).items.map(\.displayName)
        }
        #expect(try await names("ол") == ["Олена Коваль"])
        #expect(try await names("ole") == ["Oleh Kovalenko", "Olena Shevchenko"])
        #expect(try await names("zoe") == ["Zoë Olander"])
        #expect(try await names("kov ol") == ["Oleh Kovalenko"])
        #expect(try await names("\"OR*(") == [], "FTS syntax in the query is taken as text")

        var seen: [String] = []
        var cursor: String?
        repeat {
            let page = try await fixture.profiles.searchUsers(matching: "", seenBy: viewer, after: cursor, limit: 2)
            #expect(page.items.count <= 2)
            seen += page.items.map(\.displayName)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen == ["Oleh Kovalenko", "Olena Shevchenko", "Petro Bondar", "Viewer", "Zoë Olander", "Олена Коваль"])
    }

    @Test func badCursorsAndLimitsAreRefused() async throws {
        let viewer = try await fixture.addUser("Viewer")
        let badCursor = try await #require(throws: MeetError.self) {
            try await fixture.profiles.searchUsers(matching: "", seenBy: viewer, after: "!!", limit: 10)
        }
        #expect(badCursor.code == "request.invalidFields" && badCursor.fieldProblems.map(\.field) == ["cursor"])
        let badLimit = try await #require(throws: MeetError.self) {
            try await fixture.profiles.searchUsers(matching: "", seenBy: viewer, after: nil, limit: 0)
        }
        #expect(badLimit.fieldProblems.map(\.field) == ["limit"])
    }
}

@Suite struct PeopleSearchPlanTests {
    /// A page of people in name order is read from an index, not sorted from every user.
    @Test func pagesReadTheNameIndex() async throws {
        let fixture = try ProfilesFixture()
        let position = UserCursor(displayName: "Olena", userId: "x")
        let query = ProfileService.peopleQuery(matching: nil, seenBy: "viewer", after: position, limit: 21)
        let plan = try await fixture.database.reader.read { db in
            try Row.fetchAll(db, SQLRequest(literal: "EXPLAIN QUERY PLAN " + query)).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("USING COVERING INDEX user_displayNameOrder") || $0.contains("USING INDEX user_displayNameOrder") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    }
}
