import Foundation
import Logging
import MeetCore
import ServiceLifecycle

/// The loop of a dispatcher draining an outbox table (pushes, mails): a batch at a time while
/// there are due rows, else asleep until a commit to the table or the next row falls due.
/// On a graceful stop it finishes the batch in hand.
struct OutboxDrain {
    let table: String
    let database: AppDatabase
    /// The longest sleep when nothing is due, a guard against a missed wake-up.
    let idleWait: Duration
    let logger: Logger
    let now: @Sendable () -> Date

    /// Runs until a graceful shutdown. `batch` handles one batch and answers whether there was
    /// one; `nextDue` tells when the earliest waiting row falls due.
    func run(batch: () async throws -> Bool, nextDue: () async throws -> Date?) async {
        let wakeups = TableWakeups(table: table, in: database)
        defer { wakeups.cancel() }
        let stopping = StopFlag()
        await withGracefulShutdownHandler {
            while !stopping.isSet, !Task.isCancelled {
                do {
                    if try await !batch() {
                        let due = try await nextDue().map { max(0.001, $0.timeIntervalSince(now())) }
                        await wakeups.wait(upTo: due.map { min(idleWait, .milliseconds(Int64($0 * 1000))) } ?? idleWait)
                    }
                } catch {
                    logger.error("dispatch failed", metadata: ["table": "\(table)", "error": "\(error)"])
                    await wakeups.wait(upTo: idleWait)
                }
            }
        } onGracefulShutdown: {
            stopping.set()
            wakeups.ring()
        }
    }
}
