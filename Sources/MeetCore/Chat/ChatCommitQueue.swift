import Synchronization

/// Group commit: posts from any number of connections wait here while one transaction is being
/// written, and are written together in the next, as soon as it finishes. A lone post goes at
/// once; under load each fsync carries many posts, so durability (a post answered only once it
/// is committed with `synchronous = FULL`) does not cost one disk flush per message.
final class ChatCommitQueue<Post: Sendable, Outcome: Sendable>: Sendable {
    private struct Waiting: Sendable {
        var post: Post
        var continuation: CheckedContinuation<Outcome, any Error>
    }

    private let state = Mutex<(waiting: [Waiting], writing: Bool)>(([], false))
    /// Writes a batch in one transaction, answering each post in order.
    private let writeBatch: @Sendable ([Post]) async -> [Result<Outcome, any Error>]

    init(writeBatch: @escaping @Sendable ([Post]) async -> [Result<Outcome, any Error>]) {
        self.writeBatch = writeBatch
    }

    /// Queues `post` and returns once the transaction holding it has committed (or failed).
    func submit(_ post: Post) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            let startsWriter = state.withLock { state in
                state.waiting.append(Waiting(post: post, continuation: continuation))
                defer { state.writing = true }
                return !state.writing
            }
            if startsWriter { Task { await self.drain() } }
        }
    }

    /// Writes batches until nothing waits; only one drain runs at a time, so batches (and what
    /// they announce) follow each other in commit order.
    private func drain() async {
        while true {
            let batch = state.withLock { state in
                let batch = state.waiting
                state.waiting = []
                if batch.isEmpty { state.writing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            let outcomes = await writeBatch(batch.map(\.post))
            for (waiting, outcome) in zip(batch, outcomes) {
                waiting.continuation.resume(with: outcome)
            }
        }
    }
}
