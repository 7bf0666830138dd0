import Foundation
import GRDB

/// One push of one notification to one device: the outbox row the dispatcher claims,
/// delivers and records the outcome of.
public struct PushJob: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    /// Where a job is in its life.
    public enum State: String, Codable, Sendable, CaseIterable {
        /// Waiting until `dueAt`.
        case pending
        /// Claimed by the dispatcher; a job found in this state at start was cut off by a
        /// crash and is tried again.
        case sending
        /// The push service accepted it.
        case delivered
        /// Given up: too many failed attempts, a permanent refusal, or its device disabled.
        case dead
    }

    /// The row id; nil until the job is stored.
    public var id: Int64?
    /// The ``InboxNotification`` it pushes.
    public var notificationId: String
    /// The ``Device`` it pushes to.
    public var deviceId: String
    /// Whether it waits, is being sent, was delivered or was given up.
    public var state: State
    /// Attempts started so far, including one in progress.
    public var attempts: Int
    /// Seconds since 1970 when it may be tried (again).
    public var dueAt: Double
    /// Seconds since 1970 of its last change.
    public var updatedAt: Double
    /// Why the last attempt failed.
    public var lastError: String?

    /// The `pushJob` table.
    public static let databaseTableName = "pushJob"
}
