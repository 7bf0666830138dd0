import GRDB
import Synchronization

/// Group commit: posts from any number of connections wait here while one transaction is being
/// written, and are written together in the next, as soon as it finishes. A lone post goes at
/// once; under load each fsync carries many posts, so durability (a post answered only once it
/// is committed with `synchronous = FULL`) does not cost one disk flush per message.
///
/// A batch is written by a block on the database writer's own queue, and its posts are
/// answered from there: no task in between, so a post costs no thread hand-off besides the
/// writer's (under load the next batch's block is already queued when the previous one ends).
/// Each batch is its own block, so other writes of the app still take turns with the chat's.
final class ChatCommitQueue<Post: Sendable, Outcome: Sendable>: Sendable {
    /// Told a post's outcome, on the writer's thread, once its transaction committed (or
    /// failed): it must not block.
    typealias Answer = @Sendable (Result<Outcome, any Error>) -> Void

    /// What waits for the next batch: the posts and their answers, apart, so that the batch's
    /// posts go to `writeBatch` as they are (a copy of each post's strings was 1 % of its cost).
    private struct Waiting: Sendable {
        var posts: [Post] = []
        var answers: [Answer] = []
        var writing = false
    }

    private let state = Mutex(Waiting())
    private let writer: any DatabaseWriter
    /// Writes a batch in one transaction, answering each post in order.
    private let writeBatch: @Sendable ([Post], Database) -> [Result<Outcome, any Error>]

    init(writer: any DatabaseWriter, writeBatch: @escaping @Sendable ([Post], Database) -> [Result<Outcome, any Error>]) {
        self.writer = writer
        self.writeBatch = writeBatch
    }

    /// Queues `post`; `answer` is called once the transaction holding it has committed (or failed).
    func submit(_ post: Post, answer: @escaping Answer) {
        let startsWriter = state.withLock { state in
            state.posts.append(post)
            state.answers.append(answer)
            defer { state.writing = true }
            return !state.writing
        }
        if startsWriter { writeNextBatch() }
    }

    /// Queues `post` and returns once the transaction holding it has committed (or failed).
    func submit(_ post: Post) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            submit(post) { continuation.resume(with: $0) }
        }
    }

    /// Writes what waits, then queues the next batch's turn; only one batch is queued or being
    /// written at a time, so batches (and what they announce) follow each other in commit order.
    private func writeNextBatch() {
        writer.asyncWriteWithoutTransaction { [self] db in
            let (posts, answers) = state.withLock { state in
                defer { (state.posts, state.answers) = ([], []) }
                if state.posts.isEmpty { state.writing = false }
                return (state.posts, state.answers)
            }
            guard !posts.isEmpty else { return }
            for (answer, outcome) in zip(answers, writeBatch(posts, db)) {
                answer(outcome)
            }
            writeNextBatch()
        }
    }
}
