import Foundation
import GRDB

/// The push outbox as the dispatcher sees it: claims due jobs in batches, and records what
/// became of each. Every step is one transaction, so a crash at any point leaves each job
/// either still to do or done, never half-recorded.
public struct PushQueue: OutboxQueue {
    /// The `pushJob` table's bookkeeping.
    public let jobs: OutboxJobs

    /// A queue on `database` that spaces failed attempts by `retry` and dates its changes with `now`.
    public init(database: AppDatabase, retry: PushRetryPolicy = PushRetryPolicy(), now: @escaping @Sendable () -> Date) {
        jobs = OutboxJobs(table: "pushJob", database: database, retry: retry, now: now)
    }

    /// Claims up to `limit` due jobs, oldest due first, and counts the attempt; each comes
    /// with what its push is built from. A chat push gets the text of what is unread in its
    /// room now; one whose room has nothing unread left is dropped here.
    public func claim(limit: Int) async throws -> [PushDelivery] {
        try await jobs.database.writer.write { [jobs] db in
            let ids = try jobs.claimDue(limit: limit, returning: "id", at: jobs.now().timeIntervalSince1970, in: db).map { $0[0] as Int64 }
            guard !ids.isEmpty else { return [] }
            var badges: [String: Int] = [:]
            var notifications: [String: InboxNotification?] = [:]
            return try PushJob.filter(ids.contains(Column("id"))).order(Column("id")).fetchAll(db).compactMap { job in
                if notifications[job.notificationId] == nil {
                    notifications[job.notificationId] = try Self.notification(job.notificationId, db)
                }
                guard let notification = notifications[job.notificationId] ?? nil else {
                    try job.delete(db)
                    return nil
                }
                guard let device = try Device.fetchOne(db, key: job.deviceId) else { return nil }
                let badge = try badges[notification.userId] ?? Self.badge(of: notification.userId, db)
                badges[notification.userId] = badge
                return PushDelivery(job: job, notification: notification, device: device, badge: badge)
            }
        }
    }

    /// The notification a job pushes, a chat one with its text; nil when there is nothing to push.
    private static func notification(_ id: String, _ db: Database) throws -> InboxNotification? {
        guard let notification = try InboxNotification.filter(Column("id") == id).fetchOne(db) else { return nil }
        return notification.kind == ChatPushes.kind ? try ChatPushes.compose(notification, in: db) : notification
    }

    /// The number on the app's icon: unread inbox entries plus unread chat messages.
    static func badge(of userId: String, _ db: Database) throws -> Int {
        try InboxService.unreadCount(of: userId, db) + ChatUnread.total(for: userId, in: db)
    }

    /// Records the outcomes of one batch in one transaction.
    public func record(_ outcomes: [(job: PushJob, outcome: PushOutcome)]) async throws {
        try await jobs.database.writer.write { [now = jobs.now, retry = jobs.retry] db in
            let time = now().timeIntervalSince1970
            for (job, outcome) in outcomes {
                var job = job
                job.updatedAt = time
                switch outcome {
                case .delivered:
                    job.state = .delivered
                    job.lastError = nil
                case .retry(let reason, let after):
                    job.lastError = reason
                    if job.attempts >= retry.maximumAttempts {
                        job.state = .dead
                    } else {
                        job.state = .pending
                        job.dueAt = time + (after ?? retry.delay(afterAttempt: job.attempts))
                    }
                case .rejected(let reason):
                    job.state = .dead
                    job.lastError = reason
                case .tokenRefused(let reason):
                    job.state = .dead
                    job.lastError = reason
                    try Self.disable(device: job.deviceId, reason: reason, at: time, db)
                case .withdrawn:
                    try job.delete(db)
                    continue
                }
                try job.update(db)
            }
        }
    }

    /// Stops pushes to a device whose token the push service refused for good, and gives up
    /// the jobs still waiting for it.
    static func disable(device id: String, reason: String, at time: Double, _ db: Database) throws {
        try db.execute(sql: "UPDATE device SET disabledAt = ?, disabledReason = ? WHERE id = ? AND disabledAt IS NULL",
                       arguments: [Date(timeIntervalSince1970: time), reason, id])
        try db.execute(sql: """
            UPDATE pushJob SET state = 'dead', lastError = 'device disabled', updatedAt = ?
            WHERE deviceId = ? AND state = 'pending'
            """, arguments: [time, id])
    }

    /// How many jobs are in each state (for metrics and tests).
    public func counts() async throws -> [PushJob.State: Int] {
        try await jobs.database.reader.read { db in
            var counts: [PushJob.State: Int] = [:]
            for (name, count) in try OutboxJobs.counts(in: "pushJob", db) {
                if let state = PushJob.State(rawValue: name) { counts[state] = count }
            }
            return counts
        }
    }
}

/// One claimed job with what its push is made of.
public struct PushDelivery: Sendable {
    /// The job, already counted as one more attempt and marked `sending`.
    public var job: PushJob
    /// The notification to push; a chat one carries the text of what is unread in its room now.
    public var notification: InboxNotification
    /// The device it goes to.
    public var device: Device
    /// The user's unread count when the job was claimed.
    public var badge: Int
}

/// What became of one attempt to deliver a push.
public enum PushOutcome: Sendable, Equatable {
    /// The push service accepted it.
    case delivered
    /// A transient failure (timeout, connection lost, 429, 5xx): try again, after the
    /// service's `Retry-After` when it gave one, else after the policy's backoff.
    case retry(reason: String, after: TimeInterval?)
    /// The service refused this push for good (payload too large, bad topic): not retried.
    case rejected(reason: String)
    /// The service says the token is dead (APNs `Unregistered`, FCM `UNREGISTERED`): the
    /// device is disabled.
    case tokenRefused(reason: String)
    /// Not sent, and not to be: its user is reading the room it is about. The job is removed.
    case withdrawn
}

/// How failed pushes are retried: exponential backoff with jitter, up to a number of attempts.
public struct PushRetryPolicy: Sendable {
    /// After this many failed attempts a job is dead.
    public var maximumAttempts: Int
    /// The delay after the first failure; it doubles with each further one, up to `maximumDelay`.
    public var baseDelay: TimeInterval
    /// The longest wait between two attempts, in seconds.
    public var maximumDelay: TimeInterval

    /// The defaults: 8 attempts, a first delay of 2 seconds, waits of an hour at most.
    public init(maximumAttempts: Int = 8, baseDelay: TimeInterval = 2, maximumDelay: TimeInterval = 3600) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait after `attempts` failed attempts: half the exponential step plus a random
    /// part of the other half, so that jobs failed together do not come back together.
    public func delay(afterAttempt attempts: Int) -> TimeInterval {
        let step = min(maximumDelay, baseDelay * pow(2, Double(max(0, attempts - 1))))
        return step / 2 + Double.random(in: 0...(step / 2))
    }
}
