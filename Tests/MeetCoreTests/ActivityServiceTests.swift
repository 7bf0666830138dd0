import Foundation
import Testing
@testable import MeetCore

@Suite struct ActivityServiceTests {
    let fixture: ProfilesFixture

    init() throws {
        fixture = try ProfilesFixture()
    }

    func names(_ query: String, _ language: String = "en", limit: Int = 5) async throws -> [String] {
        try await fixture.activities.suggestions(matching: query, language: language, limit: limit).map(\.name)
    }

    @Test func suggestsByPrefixAndTypoInEitherLanguage() async throws {
        #expect(try await names("hik").first == "Hiking")
        #expect(try await names("hikng").first == "Hiking")
        #expect(try await names("пох", "uk").first == "Похід")
        #expect(try await names("пох", "en").first == "Hiking", "a Ukrainian query, English names")
        #expect(try await names("hik", "uk").first == "Похід", "an English query, Ukrainian names")
        #expect(try await names("board g").first == "Board games")
        #expect(try await names("qqqq").isEmpty)
    }

    @Test func popularityBreaksTiesBetweenEqualMatches() async throws {
        // "Sailing" and "Salsa" both start with "sa"; more profiles like Salsa.
        #expect(try await names("sa", limit: 50).firstIndex(of: "Sailing")! < (try await names("sa", limit: 50).firstIndex(of: "Salsa")!))
        for name in ["Ann", "Bob"] {
            let user = try await fixture.addUser(name)
            _ = try await fixture.profiles.update(try Profile(validating: user, displayName: name, activityIds: ["salsa"], today: Date()))
        }
        let ranked = try await fixture.activities.suggestions(matching: "sa", language: "en", limit: 50)
        #expect(ranked.first == ActivitySuggestion(id: "salsa", name: "Salsa", popularity: 2))
    }

    @Test func limitIsBounded() async throws {
        #expect(try await names("", limit: 50).count == 50)
        let error = try await #require(throws: MeetError.self) { try await names("", limit: 51) }
        #expect(error.code == "request.invalidFields")
    }

    @Test func proposalsAreNormalizedAndNearDuplicatesReturnTheExistingOne() async throws {
        let user = try await fixture.addUser("Proposer")
        let (created, isNew) = try await fixture.activities.propose(name: "  underwater   hockey ", language: "en", by: user)
        #expect(isNew && created.name == "Underwater hockey" && created.popularity == 0)
        #expect(try await names("underw").first == "Underwater hockey")

        for typed in ["Hikng", "HIKING", "board-games", "Boardgames", "похід", "Underwater  Hockey"] {
            let (existing, isNew) = try await fixture.activities.propose(name: typed, language: "en", by: user)
            #expect(!isNew, "\(typed)")
            #expect(["Hiking", "Board games", "Underwater hockey"].contains(existing.name), "\(typed) → \(existing.name)")
        }
    }

    @Test func aUkrainianProposalIsShownInUkrainianEverywhere() async throws {
        let user = try await fixture.addUser("Proposer")
        let (proposed, isNew) = try await fixture.activities.propose(name: "гопак", language: "en", by: user)
        #expect(isNew && proposed.name == "Гопак")
        #expect(try await names("гоп", "en").first == "Гопак")
    }

    @Test func badNamesAreRefused() async throws {
        let user = try await fixture.addUser("Proposer")
        for bad in ["", " x ", String(repeating: "a", count: 41), "<script>", "1234"] {
            let error = try await #require(throws: MeetError.self, "\(bad)") {
                try await fixture.activities.propose(name: bad, language: "en", by: user)
            }
            #expect(error.code == "activity.invalid" && error.status == 422)
        }
    }
}
