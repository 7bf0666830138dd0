import NIOCore

/// The signed-in sessions of each user, so that the end of a sign-in (logout, password reset, a
/// ban) can reach the connections it opened. Guarded by the broker's lock.
struct StompSignedInSessions {
    private var byUser: [String: [ObjectIdentifier: StompSession]] = [:]
    /// Sessions over all users, kept as they come and go (counting them would walk every user).
    private(set) var sessionCount = 0
    var userCount: Int { byUser.count }

    mutating func add(_ session: StompSession, userId: String) {
        if byUser[userId, default: [:]].updateValue(session, forKey: ObjectIdentifier(session)) == nil { sessionCount += 1 }
    }

    mutating func remove(_ session: StompSession, userId: String) {
        if byUser[userId]?.removeValue(forKey: ObjectIdentifier(session)) != nil { sessionCount -= 1 }
        if byUser[userId]?.isEmpty == true { byUser[userId] = nil }
    }

    func sessions(of userId: String) -> [StompSession] {
        byUser[userId].map { Array($0.values) } ?? []
    }
}

extension StompBroker {
    /// How many sessions are signed in right now, and of how many users (for operators:
    /// `meetupd admin stats` asks the running server).
    public var signedInCounts: (sessions: Int, users: Int) {
        signedIn.withLock { ($0.sessionCount, $0.userCount) }
    }

    /// The destinations `userId`'s signed-in sessions here subscribe to, over all of them, each
    /// session's read on its own event loop.
    public func destinations(subscribedBy userId: String) async -> Set<String> {
        var destinations = Set<String>()
        for session in signedIn.withLock({ $0.sessions(of: userId) }) {
            let subscribed = try? await session.eventLoop.submit { session.subscriptions.values.map(\.destination) }.get()
            destinations.formUnion(subscribed ?? [])
        }
        return destinations
    }

    /// Ends every signed-in session of `userId` whose principal `matches` (all of them by
    /// default): each gets an ERROR with the refusal's `code` and `message`, then the close, on
    /// its own event loop. Callable from any thread; returns at once.
    public func endSessions(ofUser userId: String, where matches: @escaping @Sendable (StompPrincipal) -> Bool = { _ in true },
                            refusal: StompRefusal) {
        for session in signedIn.withLock({ $0.sessions(of: userId) }) {
            session.eventLoop.execute {
                guard case .connected(_, let principal) = session.phase, matches(principal) else { return }
                session.fail(refusal, receiptId: nil)
            }
        }
    }
}

/// The sessions that have not signed in yet, in order of arrival, so that past the limit the
/// one that waited longest makes room. Guarded by the broker's lock.
struct StompUnauthenticatedSessions {
    private var arrivals = 0
    private var waiting: [ObjectIdentifier: (arrival: Int, session: StompSession)] = [:]

    /// Takes `session` in; returns the session it pushed out, if the limit was reached.
    mutating func admit(_ session: StompSession, limit: Int) -> StompSession? {
        var pushedOut: StompSession?
        if waiting.count >= limit, let oldest = waiting.min(by: { $0.value.arrival < $1.value.arrival }) {
            waiting[oldest.key] = nil
            pushedOut = oldest.value.session
        }
        arrivals += 1
        waiting[ObjectIdentifier(session)] = (arrivals, session)
        return pushedOut
    }

    /// Lets `session` go (it signed in or ended); whether it was still waiting.
    mutating func remove(_ session: StompSession) -> Bool {
        waiting.removeValue(forKey: ObjectIdentifier(session)) != nil
    }
}
