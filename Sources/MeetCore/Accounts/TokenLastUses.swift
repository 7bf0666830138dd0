import Foundation
import GRDB
import Synchronization

/// Refreshes of `accessToken.lastUsedAt`, gathered in memory and written together.
///
/// One token at a time, the refresh was a write per active session per minute, and every
/// write makes each reader connection drop and re-map its view of the database file: at a
/// thousand feed requests a second, a sixth of the server's CPU (`docs/benchmarks.md`).
/// Gathered, it is at most one write per `interval` whatever the number of sessions. Nothing
/// decides on `lastUsedAt` (a session expires a fixed time after login): it is bookkeeping,
/// and it may lag until the next refresh due after `interval`; refreshes still pending when
/// the process stops are lost.
final class TokenLastUses: Sendable {
    private struct State {
        var pending: [Data: Date] = [:]
        var lastWrite = Date.distantPast
    }

    private let state = Mutex(State())
    private let interval: TimeInterval

    init(interval: TimeInterval) {
        self.interval = interval
    }

    /// Notes that the token with `tokenHash` was used at `now`. Returns every pending refresh,
    /// to be written by the caller, once the last write is `interval` old; `nil` until then.
    func note(_ tokenHash: Data, usedAt now: Date) -> [Data: Date]? {
        state.withLock { state in
            state.pending[tokenHash] = now
            guard now.timeIntervalSince(state.lastWrite) >= interval else { return nil }
            state.lastWrite = now
            defer { state.pending = [:] }
            return state.pending
        }
    }

    /// Writes `refreshes` (token hash → time of use); tokens revoked meanwhile are skipped.
    static func write(_ refreshes: [Data: Date], in db: Database) throws {
        let statement = try db.cachedStatement(sql: "UPDATE accessToken SET lastUsedAt = ? WHERE tokenHash = ?")
        for (tokenHash, usedAt) in refreshes {
            try statement.execute(arguments: [usedAt, tokenHash])
        }
    }
}
