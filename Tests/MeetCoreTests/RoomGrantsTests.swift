import Foundation
import GRDB
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
}
