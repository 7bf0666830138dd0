import Foundation
import GRDB
import Synchronization
import Testing
@testable import MeetCore

/// Room grants (``RoomGrants``) end at every commit of this process that changes a value a
/// grant rests on, and at no other: a server whose every join or meeting edit dropped all
/// grants would read again for every room's next frame.
@Suite struct RoomGrantsTests {
    @Test func onlyAWriteAGrantRestsOnEndsTheGrants() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob", "cy")
        let grants = RoomGrants(database: f.database, now: { MeetingFixture.now })
        let meeting = try await f.service.create(MeetingFixture.draft(), by: "ann")
        _ = try await f.service.join(meeting.id, by: "bob")
        try await f.database.writer.write { db in
            try db.execute(literal: """
                INSERT INTO accessToken (tokenHash, userId, createdAt, expiresAt, lastUsedAt)
                VALUES (x'01', 'bob', \(MeetingFixture.now), \(MeetingFixture.now + 3600), \(MeetingFixture.now))
                """)
        }
        func endsGrants(_ write: () async throws -> Void) async throws -> Bool {
            let before = grants.currentGeneration
            try await write()
            return grants.currentGeneration != before
        }
        func endsGrants(_ sql: String) async throws -> Bool {
            try await endsGrants { try await f.database.writer.write { db in try db.execute(sql: sql, arguments: [meeting.id]) } }
        }
        var edit = MeetingChanges()
        edit.title = "Morning run"

        // Writes that leave every grant standing: a join (it bumps the meeting's member
        // count), an edit, columns assigned their own values (a record saved whole), a use.
        #expect(try await !endsGrants { _ = try await f.service.join(meeting.id, by: "cy") })
        #expect(try await !endsGrants { _ = try await f.service.update(meeting.id, with: edit, by: "ann") })
        #expect(try await !endsGrants("UPDATE user SET banned = banned, id = id WHERE id = 'bob' OR ? IS NULL"))
        #expect(try await !endsGrants("UPDATE meeting SET organizerId = organizerId, title = 'Late run' WHERE id = ?"))
        #expect(try await !endsGrants("UPDATE meetingMember SET role = role, joinedAt = joinedAt + 1 WHERE meetingId = ?"))
        #expect(try await !endsGrants("UPDATE accessToken SET expiresAt = expiresAt, lastUsedAt = expiresAt WHERE ? IS NOT NULL"))

        // Writes that could turn a grant's "yes" into a "no".
        #expect(try await endsGrants { try await f.service.leave(meeting.id, by: "cy") })
        #expect(try await endsGrants("UPDATE meetingMember SET role = 'organizer' WHERE meetingId = ? AND userId = 'bob'"))
        #expect(try await endsGrants("UPDATE meeting SET organizerId = 'bob' WHERE id = ?"))
        #expect(try await endsGrants("UPDATE accessToken SET expiresAt = createdAt WHERE ? IS NOT NULL"))
        #expect(try await endsGrants("UPDATE user SET banned = 1 WHERE id = 'bob' OR ? IS NULL"))
        #expect(try await endsGrants("DELETE FROM accessToken WHERE ? IS NOT NULL"))
        #expect(try await endsGrants("DELETE FROM meeting WHERE id = ?"))
    }

    /// A token found valid is remembered for itself as for a room, with the same ends: a
    /// write that could refuse it, its expiry, and its use falling due to be noted.
    @Test func aTokenIsRememberedUntilItCouldBeRefused() async throws {
        let f = try MeetingFixture()
        try f.users("ann")
        let clock = Mutex(MeetingFixture.now)
        let now: @Sendable () -> Date = { clock.withLock { $0 } }
        let accounts = AccountService(database: f.database, now: now)
        let grants = RoomGrants(database: f.database, now: now)
        let secret = try await f.database.writer.write { db in try AccountService.openSession(for: "ann", at: now(), in: db) }
        func check() async throws {
            let generation = grants.currentGeneration
            let found = try await f.database.reader.read { db in try accounts.checkToken(bearer: secret, in: db) }
            let tokenCheck = try #require(found)
            _ = try await accounts.noteUse(of: tokenCheck)
            grants.remember(tokenCheck, token: secret, generation: generation)
        }
        #expect(grants.user(ofToken: secret) == nil)
        try await check()
        #expect(grants.user(ofToken: secret) == "ann")
        #expect(grants.user(ofToken: secret + "x") == nil)
        #expect(!grants.admits(token: secret, userId: "ann", toMeeting: "m1"))  // a room is granted apart

        // Its use falls due to be noted: read again.
        clock.withLock { $0 += AccountService.lastUsedResolution }
        #expect(grants.user(ofToken: secret) == nil)
        try await check()
        #expect(grants.user(ofToken: secret) == "ann")

        // A ban ends it at once.
        try await f.database.writer.write { db in try db.execute(sql: "UPDATE user SET banned = 1 WHERE id = 'ann'") }
        #expect(grants.user(ofToken: secret) == nil)
        try await f.database.writer.write { db in try db.execute(sql: "UPDATE user SET banned = 0 WHERE id = 'ann'") }
        try await check()
        #expect(grants.user(ofToken: secret) == "ann")

        // Its expiry ends it, by the clock, though its use is not due to be noted yet.
        clock.withLock { $0 = MeetingFixture.now + AccountService.sessionLifetime - 30 }
        try await check()
        #expect(grants.user(ofToken: secret) == "ann")
        clock.withLock { $0 += 31 }
        #expect(grants.user(ofToken: secret) == nil)
    }
}
