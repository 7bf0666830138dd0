import GRDB
import Synchronization

/// Whether this process recorded a domain event since the chat's writer last asked: a commit
/// that records one sets it on the writer, before the next batch can begin. One of them, a
/// moderator's redaction through `/admin`, stores its `deleted` event outside the group commit,
/// with the room's next seq; the batch after it reads the events first (``ChatBatchWriter``).
final class ChatEventsRecorded: Sendable {
    private final class Flag: Sendable {
        let isSet = Atomic<Bool>(false)
    }

    private let flag = Flag()
    private let observation: AnyDatabaseCancellable

    init(database: AppDatabase) {
        let flag = self.flag
        observation = database.observeCommits(to: "event") { flag.isSet.store(true, ordering: .relaxed) }
    }

    /// Whether one was recorded since the last call; call it on the writer.
    func take() -> Bool {
        flag.isSet.exchange(false, ordering: .relaxed)
    }
}
