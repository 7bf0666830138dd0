import Foundation
import GRDB
import Testing
@testable import MeetCore

/// A ban may commit while the banned user's posts are on their way to the writer (from another
/// process, before the server has noticed and closed their sessions): the commit refuses them.
@Suite struct ChatBannedSenderTests {
    @Test func theCommitRefusesABannedUsersPostsToRoomsAndFriends() async throws {
        let fixture = try MeetingFixture()
        let meeting = try await fixture.annsMeetingWithBob(title: "Open")
        let chat = ChatService(database: fixture.database, now: { MeetingFixture.now })
        try await fixture.database.writer.write { db in
            try db.execute(sql: "INSERT INTO friendship (userId, friendId, since) VALUES ('ann', 'bob', ?1), ('bob', 'ann', ?1)",
                           arguments: [MeetingFixture.now])
        }
        _ = try await chat.post(ChatDraft(text: "before", clientMessageId: "m0"), to: meeting, by: "bob")
        _ = try await chat.postDirect(ChatDraft(text: "before", clientMessageId: "d0"), to: "ann", by: "bob")

        try await fixture.database.writer.write { db in try db.execute(sql: "UPDATE user SET banned = 1 WHERE id = 'bob'") }
        await #expect(throws: MeetError.notMember) {
            try await chat.post(ChatDraft(text: "after", clientMessageId: "m1"), to: meeting, by: "bob")
        }
        await #expect(throws: FriendService.userNotFound) {
            try await chat.postDirect(ChatDraft(text: "after", clientMessageId: "d1"), to: "ann", by: "bob")
        }
        let stored = try await fixture.database.reader.read { db in
            try String.fetchAll(db, sql: "SELECT text FROM chatMessage WHERE senderId = 'bob' AND type = 'message' ORDER BY text")
        }
        #expect(stored == ["before", "before"])
    }
}
