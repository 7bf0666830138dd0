import Synchronization

/// What feed pages know about their viewers (`FeedViewer`), kept from one page to the next, so
/// that a first page whose meetings the page cache holds needs no database read at all: the
/// read transaction and the viewer's three lookups were about 7 % of a nearby relevance page
/// (perf, issue 21).
///
/// Kept exactly as fresh as a read for this process's writes: migration 310's triggers log a
/// ``ChangeTopic/feedViewer`` change for each user concerned by any write to `block`,
/// `friendship` or `profileActivity`, and a commit that logs one forgets those users on the
/// writer, before the write returns. Another process's commits (`meetupd admin`) are forgotten
/// when the ``ChangeTail`` brings them: at once when it nudges the server, else within the
/// tail's poll interval, as for ``RoomGrants``. A page's read may race a commit: it keeps
/// what it read only if no change committed since before its read began (`generation`).
/// Bounded: past `byteBudget` it starts afresh.
final class FeedViewers: Sendable {
    private struct State {
        var viewers: [String: FeedViewer] = [:]
        var bytes = 0
        var generation: UInt64 = 0
    }

    /// What the kept viewers may take together (`FeedViewer.bytes`): some 20,000 with a
    /// dozen friends and activities.
    static let byteBudget = 16 << 20

    private let state = Mutex(State())

    /// Forgets the users whose viewer changes when this process commits in `database`.
    init(database: AppDatabase) {
        database.writer.add(transactionObserver: ChangeCommitObserver { [weak self] ids, db in
            // Changes that cannot be read might be anyone's.
            self?.forget(try? ChangeLog.subjects(of: .feedViewer, among: ids, in: db))
        }, extent: .databaseLifetime)
    }

    /// Take it before a read whose viewer may be kept (`remember(_:of:readSince:)`).
    var generation: UInt64 { state.withLock(\.generation) }

    /// The viewer `userId` as last read, if kept.
    func viewer(_ userId: String) -> FeedViewer? {
        state.withLock { $0.viewers[userId] }
    }

    /// Keeps `viewer`, read from a snapshot taken after `generation` was; not if a change
    /// committed since, as the snapshot may predate it.
    func remember(_ viewer: FeedViewer, of userId: String, readSince generation: UInt64) {
        let added = viewer.bytes + userId.utf8.count
        let full = state.withLock { state -> State? in
            guard state.generation == generation else { return nil }
            var full: State?
            if state.bytes + added > Self.byteBudget {
                full = state
                state = State(generation: generation)
            }
            if let old = state.viewers.updateValue(viewer, forKey: userId) { state.bytes -= old.bytes + userId.utf8.count }
            state.bytes += added
            return full
        }
        // Consumed, so that no copy stays here to be released last on this thread.
        if full != nil { CacheRelease.release(consume full) }
    }

    /// Forgets the viewers of other processes' changes as `changes` delivers them.
    func follow(_ changes: ChangeTail) {
        changes.subscribe(to: [.feedViewer]) { [weak self] changes in
            self?.forget(Set(changes.lazy.filter { !$0.isLocal }.map(\.subject)))
        }
    }

    /// Forgets `users`, every viewer when `nil`.
    private func forget(_ users: Set<String>?) {
        if users?.isEmpty == true { return }
        state.withLock { state in
            state.generation &+= 1
            guard let users else {
                state = State(generation: state.generation)
                return
            }
            for user in users {
                if let old = state.viewers.removeValue(forKey: user) { state.bytes -= old.bytes + user.utf8.count }
            }
        }
    }
}

extension ChangeTopic {
    /// A write that changes what a feed knows about a viewer (migration 310's triggers;
    /// subject: the user id): a block, a friendship or a profile's activity added, changed
    /// or removed, for each user concerned.
    public static let feedViewer = ChangeTopic(rawValue: "feedViewer")
}
