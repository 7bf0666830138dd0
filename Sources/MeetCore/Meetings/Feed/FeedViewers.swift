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
    /// What the kept viewers may take together (`FeedViewer.bytes`): some 20,000 with a
    /// dozen friends and activities.
    static let byteBudget = 16 << 20

    private let kept = KeptReadings<String, FeedViewer>(budget: byteBudget) { $0.utf8.count + $1.bytes }

    /// Forgets the users whose viewer changes when this process commits in `database`.
    init(database: AppDatabase) {
        database.writer.add(transactionObserver: ChangeCommitObserver { [weak self] ids, db in
            // Changes that cannot be read might be anyone's.
            self?.kept.drop(try? ChangeLog.subjects(of: .feedViewer, among: ids, in: db))
        }, extent: .databaseLifetime)
    }

    /// Take it before a read whose viewer may be kept (`remember(_:of:readSince:)`).
    var generation: UInt64 { kept.generation }

    /// The viewer `userId` as last read, if kept.
    func viewer(_ userId: String) -> FeedViewer? {
        kept.value(userId)
    }

    /// Keeps `viewer`, read from a snapshot taken after `generation` was; not if a change
    /// committed since, as the snapshot may predate it.
    func remember(_ viewer: FeedViewer, of userId: String, readSince generation: UInt64) {
        kept.keep([userId: viewer], readSince: generation)
    }

    /// Forgets the viewers of other processes' changes as `changes` delivers them.
    func follow(_ changes: ChangeTail) {
        changes.subscribe(to: [.feedViewer]) { [weak self] changes in
            self?.kept.drop(Set(changes.lazy.filter { !$0.isLocal }.map(\.subject)))
        }
    }
}

extension ChangeTopic {
    /// A write that changes what a feed knows about a viewer (migration 310's triggers;
    /// subject: the user id): a block, a friendship or a profile's activity added, changed
    /// or removed, for each user concerned.
    public static let feedViewer = ChangeTopic(rawValue: "feedViewer")
}
