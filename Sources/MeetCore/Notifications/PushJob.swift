import Foundation
import GRDB

/// One push of one notification to one device: the outbox row the dispatcher claims,
/// delivers and records the outcome of.
public struct PushJob: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
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

    public var id: Int64?
    public var notificationId: String
    public var deviceId: String
    public var state: State
    /// Attempts started so far, including one in progress.
    public var attempts: Int
    /// Seconds since 1970 when it may be tried (again).
    public var dueAt: Double
    public var updatedAt: Double
    /// Why the last attempt failed.
    public var lastError: String?

    public static let databaseTableName = "pushJob"
}
