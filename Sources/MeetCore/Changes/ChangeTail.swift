import Foundation
import GRDB
import Synchronization

/// Follows the change log in a long-running process (the server): every change committed
/// after the tail was made, by any process, reaches the subscribers of its topic once, in
/// commit order, within a poll interval — at once when nudged.
///
/// Nudges come from this process's own commits (an observer on the pool), from another
/// process through the data directory's Unix socket (``ChangeNudge``, served by MeetServer),
/// and from a timer as the fallback. Subscribers learn which changes were committed here
/// (``Change/isLocal``).
public final class ChangeTail: Sendable {
    /// Receives a batch of changes of the topics it subscribed to, oldest first. Batches
    /// arrive one at a time: the next waits for the handler to return.
    public typealias Handler = @Sendable ([Change]) async -> Void

    private struct Subscriber {
        let topics: Set<ChangeTopic>
        let handler: Handler
    }

    private let database: AppDatabase
    private let pollInterval: Duration
    private let retention: TimeInterval
    private let now: @Sendable () -> Date
    private let subscribers = Mutex<[Subscriber]>([])
    /// The id of the last change delivered.
    private let position: Mutex<Int64>
    /// Ids this process committed that the tail has not passed yet.
    private let ownIds = Mutex(Set<Int64>())
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// A tail that starts after the newest change committed so far.
    ///
    /// - Parameters:
    ///   - pollInterval: how long a change from a process that could not nudge waits at most.
    ///   - retention: how long the log keeps a change; the tail prunes older ones.
    public init(
        database: AppDatabase, pollInterval: Duration = .milliseconds(500), retention: TimeInterval = 3600,
        now: @escaping @Sendable () -> Date
    ) throws {
        self.database = database
        self.pollInterval = pollInterval
        self.retention = retention
        self.now = now
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        position = Mutex(try database.reader.read { db in try ChangeLog.lastId(in: db) })
        database.writer.add(transactionObserver: ChangeCommitObserver { [weak self] ids, _ in self?.committedHere(ids) }, extent: .databaseLifetime)
    }

    /// This process committed `ids`: marked local, delivered at once.
    private func committedHere(_ ids: Set<Int64>) {
        ownIds.withLock { $0.formUnion(ids) }
        wake.yield()
    }

    /// Calls `handler` with every later change of `topics`. Subscribe before ``run()``.
    public func subscribe(to topics: Set<ChangeTopic>, handler: @escaping Handler) {
        subscribers.withLock { $0.append(Subscriber(topics: topics, handler: handler)) }
    }

    /// Reads the log now rather than at the next poll.
    public func nudge() {
        wake.yield()
    }

    /// Delivers changes until the task is cancelled; prunes the log about once a minute.
    public func run() async {
        let ticker = Task { [pollInterval, wake] in
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                wake.yield()
            }
        }
        defer { ticker.cancel() }
        var lastPrune = Date.distantPast
        for await _ in wakeUps {
            if Task.isCancelled { break }
            // A failed read (the disk, a locked file) is retried on the next wake-up.
            try? await deliverPending()
            if now().timeIntervalSince(lastPrune) > 60 {
                lastPrune = now()
                let horizon = now().addingTimeInterval(-retention)
                try? await database.writer.write { db in try ChangeLog.prune(before: horizon, in: db) }
            }
        }
    }

    /// Delivers everything committed since the last call.
    func deliverPending() async throws {
        while true {
            let after = position.withLock { $0 }
            var batch = try await database.reader.read { db in try ChangeLog.changes(after: after, limit: 500, in: db) }
            guard let last = batch.last else { return }
            ownIds.withLock { own in
                for index in batch.indices where own.remove(batch[index].id) != nil {
                    batch[index].isLocal = true
                }
                // An id committed here but read before its commit was noted stays behind.
                own = own.filter { $0 > last.id }
            }
            for subscriber in subscribers.withLock({ $0 }) {
                let wanted = batch.filter { subscriber.topics.contains($0.topic) }
                if !wanted.isEmpty { await subscriber.handler(wanted) }
            }
            position.withLock { $0 = last.id }
        }
    }
}
