import Foundation
import Testing
@testable import MeetCore

/// Temporary bans end by themselves: the server's sweep (`liftLapsedBans`) lifts those whose
/// end has come, each with an audit line by `system`, and nothing else.
@Suite struct BanLapsesTests {
    let f: MeetingFixture
    let clock = TestClock()
    let moderator = Moderator.terminal(login: "tester")

    init() throws {
        f = try MeetingFixture()
        try f.users("ann", "bob", "cat")
    }

    var moderation: ModerationService {
        ModerationService(database: f.database, now: { [clock] in clock.now })
    }

    @Test func onlyBansWhoseEndHasComeAreLifted() async throws {
        _ = try await moderation.ban("ann", reason: "cool off", until: clock.now + 3600, by: moderator)
        _ = try await moderation.ban("bob", reason: "longer", until: clock.now + 3 * 3600, by: moderator)
        _ = try await moderation.ban("cat", reason: "for good", by: moderator)
        #expect(try await moderation.liftLapsedBans() == 0)

        clock.advance(by: 3600)  // Ann's end, to the second
        #expect(try await moderation.liftLapsedBans() == 1)
        #expect(try await moderation.liftLapsedBans() == 0, "lifted once")
        let ann = try await moderation.user("ann").user
        #expect(!ann.banned && ann.bannedUntil == nil && ann.banReason == nil)
        #expect(try await moderation.user("bob").user.banned)

        clock.advance(by: 100 * 3600)
        #expect(try await moderation.liftLapsedBans() == 1)
        #expect(try await moderation.user("cat").user.banned, "a ban without an end stays")
        let lapses = try await moderation.audit().filter { $0.action == "user.banLapsed" }
        #expect(lapses.map(\.targetId) == ["bob", "ann"] && lapses.allSatisfy { $0.actor == "system" })
    }

    @Test func anEndNotAheadIsRefused() async throws {
        let error = try await #require(throws: MeetError.self) {
            try await moderation.ban("ann", reason: "x", until: clock.now, by: moderator)
        }
        #expect(error.code == "moderation.banEndPassed")
        #expect(!(try await moderation.user("ann").user.banned))
    }
}
