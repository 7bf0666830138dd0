import GRDB
import Synchronization

/// The members the group commit found posting to meeting rooms (``ChatPostLookup/Poster``),
/// kept from one batch to the next, so that a batch whose senders all posted before reads
/// nothing before its inserts (which find the repeats themselves). The look-up's query (the
/// posts as JSON, five look-ups per post) was 9 % of the server's CPU under durable chat load
/// (issue 10); asking only whether each post repeats, one statement per post, still took 7 %.
///
/// Kept exactly as fresh as the look-up, which reads inside the batch's transaction:
/// - A commit of this process that changes a row of `meeting`, `user` or `profile` forgets every
///   poster, on the writer, before its write returns. A member who joins, leaves or is removed
///   changes `meeting` as well (the `memberCount` triggers), cascades from a deleted user or
///   meeting included: `meetingMember` is `WITHOUT ROWID`, and SQLite reports no changes of
///   its rows.
/// - A commit of another connection (`meetupd admin`) changes `PRAGMA data_version`, which
///   each batch reads first, inside its transaction: then every poster is forgotten.
///
/// Only members are kept; an outsider's post is looked up again every time.
final class ChatPosters: Sendable {
    struct Key: Hashable, Sendable {
        var meetingId: String
        var senderId: String
    }

    /// What the kept posters may take together: some 20,000.
    static let byteBudget = 4 << 20

    private let kept = KeptReadings<Key, ChatPostLookup.Poster>(budget: byteBudget) { key, poster in
        key.meetingId.utf8.count + key.senderId.utf8.count + poster.title.utf8.count
            + (poster.sender.name?.utf8.count ?? 0) + (poster.sender.photoId?.utf8.count ?? 0) + 96
    }
    /// `PRAGMA data_version` as the last batch read it; only the writer reads and writes it.
    private let dataVersion = Atomic<Int64>(-1)
    private let observation: AnyDatabaseCancellable

    /// Posters that follow the commits of `database`.
    init(database: AppDatabase) {
        let kept = self.kept
        observation = database.observeCommits(to: "meeting", "user", "profile") { kept.drop(nil) }
    }

    /// Forgets every poster if another connection committed since the last batch, and says
    /// whether one did; call it in each batch's transaction on the writer, before ``poster(_:)``.
    func catchUp(in db: Database) throws -> Bool {
        let version = try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? -1
        guard dataVersion.exchange(version, ordering: .relaxed) != version else { return false }
        kept.drop(nil)
        return true
    }

    /// Take it before a look-up whose posters may be kept (``keep(_:readSince:)``).
    var generation: UInt64 { kept.generation }

    /// The poster `key` as last looked up, if kept.
    func poster(_ key: Key) -> ChatPostLookup.Poster? {
        kept.value(key)
    }

    /// Keeps `posters`, looked up after `generation` was taken.
    func keep(_ posters: [Key: ChatPostLookup.Poster], readSince generation: UInt64) {
        kept.keep(posters, readSince: generation)
    }
}
