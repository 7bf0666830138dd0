import Foundation
import GRDB
import Testing
@testable import MeetCore

/// The mail outbox's bookkeeping on a real SQLite file, with the clock in the test's hand: who
/// gets a mail queued, and what each outcome does to it.
@Suite struct MailQueueTests {
    let fixture: ProfilesFixture
    let clock = TestClock()
    let queue: MailQueue

    init() throws {
        fixture = try ProfilesFixture()
        let clock = clock
        queue = MailQueue(database: fixture.database, retry: PushRetryPolicy(maximumAttempts: 2, baseDelay: 10), now: { clock.now })
    }

    /// Writes a notification of `kind` for `userId` and queues its mail, as the outbox does.
    func notify(_ userId: String, _ kind: DomainEvent.Kind) async throws {
        try await fixture.database.writer.write { [clock] db in
            var notification = InboxNotification(
                id: RandomToken.id(), userId: userId, kind: kind.rawValue, subjectId: "m1", deeplink: Deeplink.meeting("m1"),
                thread: "meeting.m1", arguments: ["actor": "Ann", "title": "Hiking"], createdAt: clock.now)
            try notification.insert(db)
            try MailOutbox.enqueue(notification, at: clock.now.timeIntervalSince1970, db)
        }
    }

    func jobs() async throws -> [(state: String, attempts: Int, lastError: String?)] {
        try await fixture.database.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT state, attempts, lastError FROM mailJob ORDER BY id").map { ($0["state"], $0["attempts"], $0["lastError"]) }
        }
    }

    @Test func onlyConfirmedUnbannedUsersWhoKeptTheTopicOnGetMail() async throws {
        let bob = try await fixture.addUser("Bob")
        let unconfirmed = try await fixture.addUser("Cat", confirmed: false)
        let banned = try await fixture.addUser("Dan", banned: true)
        try await fixture.database.writer.write { db in try EmailSettings(invitations: false).save(for: bob, db) }
        for user in [bob, unconfirmed, banned] {
            try await notify(user, .invitationSent)
            try await notify(user, .meetingJoined)
        }
        #expect(try await jobs().isEmpty)
        try await notify(bob, .meetingCancelled)
        let batch = try await queue.claim(limit: 8)
        let kinds = batch.map { delivery -> String? in
            if case .notification(let notification) = delivery.content { notification.kind } else { nil }
        }
        #expect(batch.map(\.recipient.id) == [bob] && kinds == ["meeting.cancelled"])
    }

    @Test func aFailedMailComesBackAfterTheBackoffAndStaysDeadAfterTheLastAttempt() async throws {
        let bob = try await fixture.addUser("Bob")
        try await notify(bob, .invitationSent)
        var batch = try await queue.claim(limit: 8)
        #expect(batch.count == 1 && batch[0].attempts == 1)
        #expect(try await queue.claim(limit: 8).isEmpty, "a claimed mail is not claimed twice")
        try await queue.record(batch[0], .retry(reason: "451 later"))
        // Between half and all of the 10 s base.
        clock.advance(by: 4.9)
        #expect(try await queue.claim(limit: 8).isEmpty)
        clock.advance(by: 5.2)
        batch = try await queue.claim(limit: 8)
        #expect(batch.count == 1 && batch[0].attempts == 2)
        try await queue.record(batch[0], .retry(reason: "451 again"))
        clock.advance(by: 100_000)
        #expect(try await queue.claim(limit: 8).isEmpty)
        #expect(try await jobs().map { "\($0.state) \($0.attempts) \($0.lastError ?? "")" } == ["dead 2 451 again"])
    }

    @Test func sentMailsLeaveRefusedOnesDieAndInterruptedOnesGoAgain() async throws {
        let bob = try await fixture.addUser("Bob")
        for _ in 0..<3 { try await notify(bob, .meetingCancelled) }
        let batch = try await queue.claim(limit: 8)
        #expect(batch.count == 3)
        try await queue.record(batch[0], .sent)
        try await queue.record(batch[1], .refused(reason: "550 no such user"))
        // The third was in flight when the process died.
        #expect(try await queue.requeueInterrupted() == 1)
        let again = try await queue.claim(limit: 8)
        #expect(again.map(\.jobId) == [batch[2].jobId] && again[0].attempts == 2)
        #expect(try await jobs().map(\.state) == ["dead", "sending"])
    }
}
