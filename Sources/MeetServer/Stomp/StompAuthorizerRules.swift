import MeetCore
import NIOCore
import Stomp

/// Who may use which broker destination. Every user may listen to their own `/user/queue/...`
/// (the broker keys those per user). A meeting's rooms (`/topic/meetings.{id}.chat`, `.typing`,
/// `.locations`, and SENDs to `/app/meetings.{id}.chat|read|edit|delete|typing|location`) are for its organizer and members,
/// SENDs to `/app/direct.{userId}` for any signed-in user (friendship is checked as they are stored),
/// decided by the same rules as REST
/// (``MeetingAccess``). Every grant of the app's destinations first re-checks the session's
/// token (``requireSignedIn``). With `--stomp-sandbox`, any authenticated session may SUBSCRIBE
/// and SEND on `/topic/sandbox.*` like a stock broker's topic, so the protocol can be checked
/// (and benchmarked) apart from the app's rules: like a stock broker, the sandbox trusts the
/// CONNECT and reads no database per frame. Everything else is refused until a feature allows it.
struct StompAuthorizerRules: StompAuthorizer {
    let sandbox: Bool
    let accounts: AccountService
    let database: AppDatabase
    /// The rooms each token was lately found allowed into: a SEND covered by a grant is
    /// answered on the event loop, without a read (``RoomGrants`` says when a grant ends).
    let grants: RoomGrants

    /// The sandbox, and a meeting's room for a token with a grant still valid (``RoomGrants``).
    func grantsAtOnce(_ access: StompAccess, destination: String, principal: StompPrincipal) -> Bool {
        isSandbox(destination) || Self.meetingId(of: access, to: destination).map { admits(principal, toMeeting: $0) } == true
    }

    func authorize(_ access: StompAccess, destination: String, principal: StompPrincipal,
                   on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        if isSandbox(destination) { return eventLoop.makeSucceededVoidFuture() }
        let meetingId = Self.meetingId(of: access, to: destination)
        if let meetingId, admits(principal, toMeeting: meetingId) { return eventLoop.makeSucceededVoidFuture() }
        // Direct messages check friendship where they are written (``DirectConversation``).
        // Asked only when the destination is no meeting room's: a chat SEND's is read once here.
        let isDirect = { access == .send && (DirectAction(appDestination: destination) != nil || destination == "/app/presence") }
        let isOwn = { access == .subscribe && (destination.hasPrefix("/user/queue/") || destination == PresenceTracker.topic) }
        guard meetingId != nil || isDirect() || isOwn() else {
            return eventLoop.makeFailedFuture(StompRefusal(code: "destination.forbidden", message: "\(destination) is not open to this session"))
        }
        // Database reads: done by GRDB's reader threads, never on the event loop.
        return eventLoop.makeFutureWithTask { [accounts, database, grants] in
            guard let meetingId else { return try await Self.requireSignedIn(principal, with: accounts) }
            try await Self.requireSignedInMember(principal, of: meetingId, with: accounts, in: database, grants: grants)
        }
    }

    /// Whether a grant still valid lets the session's token into the rooms of `meetingId`.
    private func admits(_ principal: StompPrincipal, toMeeting meetingId: String) -> Bool {
        guard let token = principal.credential else { return false }
        return grants.admits(token: token, userId: principal.userId, toMeeting: meetingId)
    }

    /// The meeting whose room `destination` is, for `access`.
    private static func meetingId(of access: StompAccess, to destination: String) -> String? {
        access == .subscribe ? MeetingTopic(destination: destination)?.meetingId : ChatAction(appDestination: destination)?.meetingId
    }

    /// A meeting room's subscription is confirmed once registered: a member who left while
    /// their SUBSCRIBE was being authorized is refused now, since their departure's revocation
    /// (``ChatRevocation``) ran before there was a subscription to end. The read starts after
    /// the registration, so either it sees the departure, or the departure commits later and its
    /// revocation finds the subscription.
    func confirm(subscriptionTo destination: String, principal: StompPrincipal,
                 on eventLoop: any EventLoop) -> EventLoopFuture<Void>? {
        guard let meetingId = MeetingTopic(destination: destination)?.meetingId else { return nil }
        return eventLoop.makeFutureWithTask { [database] in
            try await Self.requireMember(principal.userId, of: meetingId, in: database)
        }
    }

    /// A sandbox topic, open to SUBSCRIBE and SEND when the sandbox is on.
    private func isSandbox(_ destination: String) -> Bool {
        sandbox && destination.hasPrefix("/topic/sandbox.") && destination.count > "/topic/sandbox.".count
    }

    /// A session is authenticated once, at CONNECT, but its sign-in can end while it stays
    /// connected; so before granting anything, ask again with the same check as REST (expiry,
    /// logout, password reset, ban).
    private static func requireSignedIn(_ principal: StompPrincipal, with accounts: AccountService) async throws {
        guard let token = principal.credential,
              let authentication = try await accounts.authenticate(bearer: token),
              authentication.userId == principal.userId else { throw sessionEnded }
    }

    /// ``requireSignedIn(_:with:)`` then ``requireMember(_:of:in:)``, with the same refusals in
    /// the same order, but both read in one read: every SEND to a room asks them, and each read
    /// is a hop to a reader's queue and back (thread wake-ups, a transaction), which cost more
    /// than the two queries. A "yes" is remembered in `grants`.
    private static func requireSignedInMember(_ principal: StompPrincipal, of meetingId: String, with accounts: AccountService,
                                              in database: AppDatabase, grants: RoomGrants) async throws {
        guard let token = principal.credential else { throw sessionEnded }
        let generation = grants.currentGeneration  // before the read: a commit during it makes the grant stale
        // Outside a transaction, each query on its own snapshot, as when they were two reads:
        // the snapshot they would share bought nothing, and GRDB compiles its BEGIN and COMMIT
        // for every read (5 % of the server's CPU under durable chat load).
        let read = try await database.reader.unsafeRead { db -> (AccountService.TokenCheck, Result<MeetingRole, any Error>)? in
            guard let check = try accounts.checkToken(bearer: token, in: db) else { return nil }
            return (check, Result { try MeetingAccess.role(of: check.authentication.userId, inMeeting: meetingId, in: db) })
        }
        guard let (check, role) = read, try await accounts.noteUse(of: check).userId == principal.userId else { throw sessionEnded }
        try requireMember(role)
        grants.remember(check, token: token, meetingId: meetingId, generation: generation)
    }

    /// Ends the session: nothing it asks for can be granted any more.
    static let sessionEnded = sessionEnded(because: "it is no longer valid")

    /// Ends the session, saying why its sign-in ended (signed out, password reset, ...).
    static func sessionEnded(because reason: String) -> StompRefusal {
        StompRefusal(code: "auth.sessionEnded",
                     message: "this session's sign-in has ended (\(reason)); connect again with a valid token", endsSession: true)
    }

    /// Refuses anyone but the organizer and members. A meeting the user may not know about
    /// (private, or its organizer blocked) is refused exactly like one that does not exist.
    private static func requireMember(_ userId: String, of meetingId: String, in database: AppDatabase) async throws {
        let role: Result<MeetingRole, any Error>
        do {
            role = .success(try await MeetingAccess.role(of: userId, inMeeting: meetingId, in: database))
        } catch {
            role = .failure(error)
        }
        try requireMember(role)
    }

    /// The same, for the user's `role` as read (or the error reading it).
    private static func requireMember(_ read: Result<MeetingRole, any Error>) throws {
        let role: MeetingRole
        do {
            role = try read.get()
        } catch let error as MeetError where error.code == MeetingRefusal.notFound.code {
            throw MeetingRefusal.notFound
        }
        guard role == .organizer || role == .member else { throw MeetingRefusal.notMember }
    }
}

/// The refusals of a meeting's rooms; their codes are the REST problem codes.
enum MeetingRefusal {
    static let notFound = StompRefusal(code: "meeting.notFound", message: "no such meeting")
    static let notMember = StompRefusal(code: "meeting.notMember", message: "only the meeting's members may join its rooms")
}
