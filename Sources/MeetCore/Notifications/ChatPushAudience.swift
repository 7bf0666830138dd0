import GRDB

/// The members of each meeting who would get a chat push for a new message now, as a group
/// commit read them (``ChatPushes/Waiting``), kept from one batch to the next while no commit
/// could change the answer: under durable chat load the read (a probe per member of the
/// devices, mutes and waiting pushes) was the writer's largest cost after SQLite's insert and
/// commit, repeated by every batch of the same room (issue 10).
///
/// Kept exactly as fresh as the read, like ``ChatPosters``:
/// - A commit of this process that changes a row of `device`, `notificationMute`,
///   `notification` or `pushJob` (a push queued, claimed or sent, a device or a mute added or
///   removed) or of `meeting` (a member joining or leaving, through the `memberCount`
///   triggers: `meetingMember` is `WITHOUT ROWID`) forgets every room, on the writer.
/// - A commit of another connection forgets them all when the next batch reads
///   `PRAGMA data_version` (``ChatPosters/catchUp(in:)``).
/// - A batch's reads are kept only once it has committed, and only if nothing was forgotten
///   since the batch began: a batch that queued pushes forgets, at its commit, what it read.
final class ChatPushAudience: Sendable {
    /// What the kept rooms may take together.
    static let byteBudget = 4 << 20

    private let kept = KeptReadings<String, Set<String>>(budget: byteBudget) { meetingId, members in
        meetingId.utf8.count + members.reduce(0) { $0 + $1.utf8.count + 16 } + 64
    }
    private let observation: AnyDatabaseCancellable

    /// An audience that follows the commits of `database`.
    init(database: AppDatabase) {
        let kept = self.kept
        observation = database.observeCommits(to: "meeting", "device", "notificationMute", "notification", "pushJob") {
            kept.drop(nil)
        }
    }

    /// Take it when a batch begins, before it reads any room (``keep(_:readSince:)``).
    var generation: UInt64 { kept.generation }

    /// The members of `meetingId` who would get a push now, if kept.
    func members(of meetingId: String) -> Set<String>? {
        kept.value(meetingId)
    }

    /// Keeps what a batch that began at `generation` read, once it has committed.
    func keep(_ rooms: [String: Set<String>], readSince generation: UInt64) {
        guard !rooms.isEmpty else { return }
        kept.keep(rooms, readSince: generation)
    }

    /// Forgets every room: another connection committed.
    func forget() {
        kept.drop(nil)
    }
}
