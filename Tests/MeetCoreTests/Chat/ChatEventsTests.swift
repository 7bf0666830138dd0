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
        let meeting = try await fixture.annsMeetingWithBob(title: "Hike")
        try await fixture.service.leave(meeting, by: "bob")
        try await fixture.database.writer.write { db in try db.execute(sql: "DELETE FROM user WHERE id = 'bob'") }

        let writer = ChatBatchWriter(pushDelay: 5, posters: ChatPosters(database: fixture.database),
                                     audience: ChatPushAudience(database: fixture.database))
        let (appended, departures) = try await Self.read(by: writer, fixture)
        #expect(appended.map { "\($0.system?.kind ?? "-") \($0.senderId ?? "nobody")" } == ["memberJoined nobody", "memberLeft nobody"])
        #expect(departures == [ChatDeparture(meetingId: meeting, userId: "bob")])
        #expect(try await Self.read(by: writer, fixture).appended.isEmpty)
    }

    /// Two edits read in one pass (or after a restart) each tell the time they set, not the
    /// meeting's time when the notes are written.
    @Test func eachEditsNoteTellsTheTimeItSet() async throws {
        let fixture = try MeetingFixture()
        try fixture.users("ann")
        let meeting = try await fixture.service.create(MeetingFixture.draft(title: "Hike"), by: "ann").id
        let writer = ChatBatchWriter(pushDelay: 5, posters: ChatPosters(database: fixture.database),
                                     audience: ChatPushAudience(database: fixture.database))
        _ = try await Self.read(by: writer, fixture)
        for hours in [48.0, 72.0] {
            var edit = MeetingChanges()
            edit.startsAt = MeetingFixture.time(hours: hours)
            _ = try await fixture.service.update(meeting, with: edit, by: "ann")
        }
        let notes = try await Self.read(by: writer, fixture).appended.compactMap { $0.system?.arguments["startsAt"] }
        #expect(notes == [48.0, 72.0].map { MeetingFixture.now.addingTimeInterval($0 * 3600).formatted(.iso8601) })
    }

    /// The commit queue learns that this process recorded an event (a redaction through
    /// `/admin` among them) from the commit itself, before its next batch; other commits say
    /// nothing.
    @Test func aCommitThatRecordsAnEventIsNoticedOnce() async throws {
        let fixture = try MeetingFixture()
        let recorded = ChatEventsRecorded(database: fixture.database)
        try fixture.users("ann")
        #expect(!recorded.take())
        _ = try await fixture.service.create(MeetingFixture.draft(title: "Hike"), by: "ann")
        #expect(recorded.take())
        #expect(!recorded.take())
    }

    /// A pass over the events as the server makes it: a batch of one `.events` write (which may
    /// read them ahead of its writes).
    private static func read(by writer: ChatBatchWriter, _ fixture: MeetingFixture) async throws
        -> (appended: [ChatMessage], departures: [ChatDeparture]) {
        let batch = try await fixture.database.writer.writeWithoutTransaction { db in writer.write([.events], in: db) }
        let written = try [batch.events] + batch.outcomes.map { try $0.get() }
        return (written.flatMap(\.appended), written.flatMap(\.departures))
    }
}
