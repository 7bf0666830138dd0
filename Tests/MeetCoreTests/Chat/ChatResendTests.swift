import Dispatch
import Foundation
import GRDB
import Testing
@testable import MeetCore

/// A phone that reconnects while its post still waits for the commit re-sends it; past the rate
/// limit, the re-send must get the original (its id and seq), not a refusal.
@Suite struct ChatResendTests {
    @Test func aResendOverTheLimitWhoseOriginalIsStillQueuedGetsTheOriginal() async throws {
        let fixture = try MeetingFixture()
        let meeting = try await fixture.annsMeetingWithBob(title: "Open")
        // A burst of one: the re-send is over the limit.
        let chat = ChatService(database: fixture.database, now: { MeetingFixture.now }, burst: 1, perSecond: 0.001)
        let (answers, answered) = AsyncStream.makeStream(of: (String, Result<ChatService.Posted, any Error>).self)

        // The writer is busy: the original waits in the queue, not committed.
        let writerFree = DispatchSemaphore(value: 0)
        fixture.database.writer.asyncWriteWithoutTransaction { _ in writerFree.wait() }
        let draft = ChatDraft(text: "on my way", clientMessageId: "c1")
        chat.post(draft, to: meeting, by: "bob") { answered.yield(("original", $0)) }
        chat.post(draft, to: meeting, by: "bob") { answered.yield(("re-send", $0)) }
        // The re-send's look-up in the pool finds nothing yet; let it get there first.
        try await Task.sleep(for: .milliseconds(200))
        writerFree.signal()

        var outcomes: [String: ChatService.Posted] = [:]
        for await (who, outcome) in answers {
            outcomes[who] = try outcome.get()
            if outcomes.count == 2 { break }
        }
        let original = try #require(outcomes["original"])
        let resend = try #require(outcomes["re-send"])
        #expect(!original.isRepeat && resend.isRepeat)
        #expect(resend.message.id == original.message.id && resend.message.seq == original.message.seq)
        let stored = try await fixture.database.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM chatMessage WHERE clientMessageId = 'c1'")
        }
        #expect(stored == 1)
    }
}
