import Foundation
import Testing
@testable import MeetCore

/// The push outbox's bookkeeping on a real SQLite file, with the clock in the test's hand:
/// what each outcome does to a job and its device.
@Suite struct PushQueueTests {
    /// A database where `bob` asked `ann` to be friends while `ann` had two phones.
    struct Fixture {
        let fixture: ProfilesFixture
        let clock = TestClock()
        let queue: PushQueue
        let phones: [String]

        init(retry: PushRetryPolicy) async throws {
            fixture = try ProfilesFixture()
            let ann = try await fixture.addUser("Ann")
            let bob = try await fixture.addUser("Bob")
            let devices = DeviceService(database: fixture.database, now: Date.init)
            var phones: [String] = []
            for token in ["aa", "bb"] {
                phones.append(try await devices.register(DeviceRegistration(pushService: "apns", token: token, locale: "en"), for: ann).device.id)
            }
            self.phones = phones
            _ = try await FriendService(database: fixture.database, now: Date.init).sendRequest(from: bob, to: ann)
            let clock = clock
            queue = PushQueue(database: fixture.database, retry: retry, now: { clock.now })
        }

        func advance(_ seconds: TimeInterval) {
            clock.advance(by: seconds)
        }

        func device(_ id: String) async throws -> Device? {
            try await fixture.database.reader.read { db in try Device.fetchOne(db, key: id) }
        }

        func remove() {
            try? FileManager.default.removeItem(at: URL(fileURLWithPath: fixture.database.writer.path).deletingLastPathComponent())
        }
    }

    @Test func aTransientFailureComesBackAfterTheBackoffUntilTheLastAttempt() async throws {
        let fixture = try await Fixture(retry: PushRetryPolicy(maximumAttempts: 3, baseDelay: 10, maximumDelay: 3600))
        defer { fixture.remove() }
        var batch = try await fixture.queue.claim(limit: 10)
        #expect(batch.count == 2)
        #expect(batch.allSatisfy { $0.badge == 1 && $0.job.attempts == 1 && $0.job.state == .sending })
        #expect(try await fixture.queue.claim(limit: 10).isEmpty, "claimed jobs are not claimed twice")

        try await fixture.queue.record([(batch[0].job, .retry(reason: "503", after: nil)), (batch[1].job, .retry(reason: "429", after: 100))])
        // Backoff after the first failure: between half and all of the 10 s base.
        fixture.advance(4.9)
        #expect(try await fixture.queue.claim(limit: 10).isEmpty)
        fixture.advance(5.2)
        batch = try await fixture.queue.claim(limit: 10)
        #expect(batch.map(\.job.deviceId) == [fixture.phones[0]], "Retry-After holds the other one back")
        fixture.advance(90)
        #expect(try await fixture.queue.claim(limit: 10).map(\.job.deviceId) == [fixture.phones[1]])

        // The first job fails twice more: at its third attempt it is dead, not retried.
        try await fixture.queue.record([(batch[0].job, .retry(reason: "timeout", after: nil))])
        fixture.advance(20)
        batch = try await fixture.queue.claim(limit: 10)
        #expect(batch.first?.job.attempts == 3)
        try await fixture.queue.record([(batch[0].job, .retry(reason: "timeout", after: nil))])
        fixture.advance(3600)
        #expect(try await fixture.queue.claim(limit: 10).isEmpty)
        #expect(try await fixture.queue.counts() == [.dead: 1, .sending: 1])
    }

    @Test func aRefusedTokenDisablesItsDeviceAndGivesUpItsOtherJobs() async throws {
        let fixture = try await Fixture(retry: PushRetryPolicy())
        defer { fixture.remove() }
        let batch = try await fixture.queue.claim(limit: 1)
        let refused = try #require(batch.first)
        // A second job waits for the same device.
        try await fixture.fixture.database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO pushJob (notificationId, deviceId, state, attempts, dueAt, updatedAt)
                SELECT notificationId, deviceId, 'pending', 0, dueAt, updatedAt FROM pushJob WHERE id = ?
                """, arguments: [refused.job.id])
        }
        try await fixture.queue.record([(refused.job, .tokenRefused(reason: "Unregistered"))])
        let device = try #require(try await fixture.device(refused.job.deviceId))
        #expect(device.disabledAt != nil && device.disabledReason == "Unregistered")
        let rest = try await fixture.queue.claim(limit: 10)
        #expect(rest.map(\.job.deviceId) == [fixture.phones.first { $0 != refused.job.deviceId }])
        #expect(try await fixture.queue.counts()[.dead] == 2)
    }

    @Test func jobsCutOffByACrashGoAgain() async throws {
        let fixture = try await Fixture(retry: PushRetryPolicy())
        defer { fixture.remove() }
        #expect(try await fixture.queue.claim(limit: 10).count == 2)
        // A new process starts: what was claimed and never recorded is due again.
        #expect(try await fixture.queue.requeueInterrupted() == 2)
        let again = try await fixture.queue.claim(limit: 10)
        #expect(again.count == 2 && again.allSatisfy { $0.job.attempts == 2 })
    }

    @Test func theBackoffDoublesWithJitterUpToItsCap() {
        let policy = PushRetryPolicy(maximumAttempts: 20, baseDelay: 2, maximumDelay: 60)
        for attempt in 1...10 {
            let step = min(60, 2 * pow(2, Double(attempt - 1)))
            let delays = (0..<50).map { _ in policy.delay(afterAttempt: attempt) }
            #expect(delays.allSatisfy { $0 >= step / 2 && $0 <= step })
            #expect(Set(delays).count > 1, "jitter spreads the retries")
        }
    }
}

