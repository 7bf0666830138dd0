import Foundation
import GRDB
import Testing
@testable import MeetCore

/// A post's batch reads the domain events first when this process recorded one; if that read
/// fails (a trigger stands in for an I/O error), the post still goes, and the event reader is
/// woken to try the events again until it succeeds, with no later event to wake it.
@Suite struct ChatEventsRetryTests {
    @Test func aBatchThatFailedToReadTheEventsWakesTheReader() async throws {
        let fixture = try MeetingFixture()
        let chat = ChatService(database: fixture.database, now: { MeetingFixture.now })
        try await fixture.database.writer.write { db in
            try db.execute(sql: """
                CREATE TRIGGER chatFault BEFORE INSERT ON chatMessage WHEN NEW.type = 'system'
                BEGIN SELECT RAISE(ABORT, 'disk trouble'); END
                """)
        }
        let meeting = try await fixture.annsMeetingWithBob(title: "Open")  // records bob's join
        _ = try await chat.post(ChatDraft(text: "hi", clientMessageId: "m0"), to: meeting, by: "bob")
        try await fixture.database.writer.write { db in try db.execute(sql: "DROP TRIGGER chatFault") }

        var kinds: [String] = []
        for _ in 0..<100 where kinds.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            kinds = try await fixture.database.reader.read { db in
                try String.fetchAll(db, sql: "SELECT system ->> '$.kind' FROM chatMessage WHERE type = 'system' ORDER BY seq")
            }
        }
        #expect(kinds == ["memberJoined"])
    }
}
