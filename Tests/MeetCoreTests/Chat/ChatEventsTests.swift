import Foundation
import GRDB
import Testing
@testable import MeetCore

/// The chat's reading of the domain-event log (``ChatEvents``), through the batch writer's
/// `.events` write as the server runs it.
@Suite struct ChatEventsTests {
    /// An event whose actor's account is gone by the time it is read (deleted by a moderator
    /// while the server was down) still becomes its system message, without a sender: refusing
    /// it on the foreign key kept it unread, and every event after it waited for good.
    @Test func anEventWhoseActorWasDeletedMeanwhileIsStillRead() async throws {
        let fixture = try MeetingFixture()
        try fixture.users("ann", "bob")
        let meeting = try await fixture.service.create(MeetingFixture.draft(title: "Hike"), by: "ann").id
        _ = try await fixture.service.join(meeting, by: "bob")
        try await fixture.service.leave(meeting, by: "bob")
        try await fixture.database.writer.write { db in try db.execute(sql: "DELETE FROM user WHERE id = 'bob'") }

        let writer = ChatBatchWriter(pushDelay: 5, posters: ChatPosters(database: fixture.database),
                                     audience: ChatPushAudience(database: fixture.database))
        let read = try await fixture.database.writer.writeWithoutTransaction { db in writer.write([.events], in: db) }
        let written = try #require(try read.first?.get())
        #expect(written.appended.map { "\($0.system?.kind ?? "-") \($0.senderId ?? "nobody")" } == ["memberJoined nobody", "memberLeft nobody"])
        #expect(written.departures == [ChatDeparture(meetingId: meeting, userId: "bob")])
        let again = try await fixture.database.writer.writeWithoutTransaction { db in writer.write([.events], in: db) }
        #expect(try again.first?.get().appended.isEmpty == true)
    }
}
