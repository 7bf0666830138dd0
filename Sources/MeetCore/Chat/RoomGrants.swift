import Foundation
import GRDB
import Synchronization

/// The meeting rooms a bearer token was found allowed into, and whom a bearer token was found
/// to stand for, remembered while nothing that decides it has changed, so that a session's
/// SENDs to its rooms and a client's feed requests need no token read each.
///
/// Every SEND and SUBSCRIBE to a meeting's room asks two questions: is the session's token
/// still valid (not revoked, not expired, its user not banned or deleted), and is its user the
/// meeting's organizer or a member? Answering them took a read on a reader thread per frame
/// (~45 µs of CPU and two thread hand-offs under durable chat load). A grant remembers a "yes"
/// for one (token, meeting) pair, or for the token alone (the first question only, which every
/// `GET /meetings` asks: its SHA-256 and query were 3–4 % of a feed request, issue 21), at a
/// **generation**: a counter bumped by every commit that could turn a "yes" into a "no", and a
/// grant of an older generation is never used.
///
/// What bumps the generation is decided by table, not by service: migrations 405 and 406 log
/// a ``ChangeTopic/grant`` change for every deletion of an `accessToken` or a change of its
/// key or expiry, every ban, unban, deletion or re-keying of a `user`, every deletion or
/// change of a `meetingMember`, and every deletion of a `meeting` or change of its organizer.
/// So whichever code path revokes a token, bans, deletes an account, removes or blocks a
/// member, or deletes a meeting, it logs a grant change, and nothing else does (a join, an
/// edit of a meeting or a profile leaves every grant standing):
/// - a commit of this process that logs a grant change bumps the generation on the writer,
///   before the write returns to its caller: a frame authorized after it reads again;
/// - a commit of another process (`meetupd admin`) bumps it when the ``ChangeTail`` reads it:
///   at once when that process nudges the server (the admin CLI does), else within the tail's
///   poll interval (500 ms) — the same bound within which such a ban already ends the
///   user's live sessions. Until then a remembered grant may still admit a frame or a feed
///   request; a chat post is safe meanwhile as far as membership goes (the group commit checks
///   membership again inside its transaction), a revoked token is not.
///
/// Only a "yes" is remembered: every refusal is read again, with the refusals and their order
/// unchanged. A grant is also used only while its token has not expired (by the clock, as the
/// read checks it) and while the token's `lastUsedAt` is not due for a refresh (then the frame
/// takes the read and ``AccountService/noteUse(of:)`` as before, so the bookkeeping is
/// unchanged). Grants live in memory only, at most ``capacity`` of them (then all are dropped).
public final class RoomGrants: Sendable {
    /// A grant: who the token stands for, and until when the grant may be used.
    private struct Grant {
        var userId: String
        var expiresAt: Date
        /// When the token's use must be noted again (``AccountService/lastUsedResolution``).
        var noteDueAt: Date
    }

    private struct Key: Hashable {
        var token: String
        /// `nil`: the token alone (``user(ofToken:)``).
        var meetingId: String?
    }

    private struct State {
        var generation: UInt64 = 0
        var grants: [Key: Grant] = [:]

        /// Drops every grant of an older generation than `current`.
        mutating func catchUp(to current: UInt64) {
            guard generation != current else { return }
            generation = current
            grants.removeAll(keepingCapacity: true)
        }
    }

    /// How many grants are kept at most; past it, all are dropped and found again by reading.
    static let capacity = 65_536

    private let generation = Atomic<UInt64>(0)
    private let state = Mutex(State())
    private let now: @Sendable () -> Date

    /// Grants that follow the commits of `database` in this process; call ``follow(_:)`` for
    /// the other processes' commits. `now` is the clock tokens expire by (the accounts' clock).
    public init(database: AppDatabase, now: @escaping @Sendable () -> Date) {
        self.now = now
        database.writer.add(transactionObserver: ChangeCommitObserver { [weak self] ids, db in
            // A commit whose changes cannot be read is taken for a grant change.
            if (try? ChangeLog.contains(.grant, among: ids, in: db)) != false { self?.invalidate() }
        }, extent: .databaseLifetime)
    }

    /// Follows the change log for the commits of other processes that could end a grant.
    public func follow(_ changes: ChangeTail) {
        changes.subscribe(to: [.grant]) { [weak self] _ in self?.invalidate() }
    }

    /// The generation to hand to ``remember(_:token:meetingId:generation:)``: read it before
    /// the read whose answer is remembered, so that a commit racing with that read makes the
    /// grant stale rather than wrong.
    public var currentGeneration: UInt64 {
        generation.load(ordering: .acquiring)
    }

    /// Whether the session signed in as `userId` with `token` may use meeting `meetingId`'s
    /// rooms by a grant still valid; `false` means "read and decide", not a refusal.
    public func admits(token: String, userId: String, toMeeting meetingId: String) -> Bool {
        grant(Key(token: token, meetingId: meetingId))?.userId == userId
    }

    /// Whom `token` stands for by a grant still valid (``remember(_:token:generation:)``);
    /// `nil` means "check the token", not a refusal.
    public func user(ofToken token: String) -> String? {
        grant(Key(token: token, meetingId: nil))?.userId
    }

    /// The grant for `key` if it may be used now.
    private func grant(_ key: Key) -> Grant? {
        let current = currentGeneration
        let now = now()
        return state.withLock { state in
            state.catchUp(to: current)
            guard let grant = state.grants[key], grant.expiresAt > now, grant.noteDueAt > now else { return nil }
            return grant
        }
    }

    /// Remembers that `check` (made at generation `generation`) found the token valid and its
    /// user the organizer or a member of meeting `meetingId`. Call it only after
    /// ``AccountService/noteUse(of:)``.
    public func remember(_ check: AccountService.TokenCheck, token: String, meetingId: String, generation: UInt64) {
        remember(check, as: Key(token: token, meetingId: meetingId), generation: generation)
    }

    /// Remembers that `check` (made at generation `generation`) found the token valid. Call it
    /// only after ``AccountService/noteUse(of:)``.
    public func remember(_ check: AccountService.TokenCheck, token: String, generation: UInt64) {
        remember(check, as: Key(token: token, meetingId: nil), generation: generation)
    }

    private func remember(_ check: AccountService.TokenCheck, as key: Key, generation: UInt64) {
        let current = currentGeneration
        guard generation == current else { return }  // something changed since the read
        // noteUse refreshed lastUsedAt now if it was due, else it stays due at the old time.
        let noted = check.checkedAt.timeIntervalSince(check.lastUsedAt) >= AccountService.lastUsedResolution
        let grant = Grant(userId: check.authentication.userId, expiresAt: check.expiresAt,
                          noteDueAt: (noted ? check.checkedAt : check.lastUsedAt).addingTimeInterval(AccountService.lastUsedResolution))
        state.withLock { state in
            state.catchUp(to: current)
            if state.grants.count >= Self.capacity { state.grants.removeAll(keepingCapacity: true) }
            state.grants[key] = grant
        }
    }

    /// Makes every grant remembered so far unusable.
    private func invalidate() {
        generation.add(1, ordering: .releasing)
    }
}

extension ChangeTopic {
    /// A write that could end a session's grant to a room (migrations 405 and 406's triggers;
    /// subject: the user id, the organizer's for a meeting): a token revoked or changed, a user
    /// banned, unbanned or deleted, a membership ended or changed, a meeting deleted or its
    /// organizer changed.
    public static let grant = ChangeTopic(rawValue: "grant")
}
