import NIOCore

/// Who a session acts for, as established by the injected ``StompAuthenticator``.
public struct StompPrincipal: Sendable, Hashable {
    /// The user's id; `/user/queue/...` destinations resolve to all sessions of this user.
    public var userId: String
    /// What the session signed in with (e.g. its bearer token), kept for the authenticator's own
    /// side so that an authorizer can ask again whether it still holds: a sign-in can end
    /// (logout, expiry, ban) while the connection stays open. Opaque to the broker, never sent.
    public var credential: String?

    /// Creates a principal.
    public init(userId: String, credential: String? = nil) {
        self.userId = userId
        self.credential = credential
    }
}

/// What a client presented to authenticate: the CONNECT frame's headers and any credential
/// the transport carried (the WebSocket upgrade's bearer token).
public struct StompCredentials: Sendable {
    /// All headers of the CONNECT or STOMP frame.
    public var headers: StompHeaders
    /// A bearer token taken from the transport (upgrade request), if any.
    public var transportToken: String?

    /// Creates credentials.
    public init(headers: StompHeaders, transportToken: String? = nil) {
        self.headers = headers
        self.transportToken = transportToken
    }

    /// The bearer token, in order of precedence: the CONNECT `Authorization: Bearer` header, the
    /// `passcode` header, then the transport's token.
    public var bearerToken: String? {
        if let authorization = headers["Authorization"] ?? headers["authorization"],
           let token = BearerCredential.token(in: authorization) {
            return token
        }
        return headers["passcode"] ?? transportToken
    }
}

/// Establishes who a connecting client is. Fail the future (with ``StompRefusal`` to choose the
/// message) to refuse: the client gets an ERROR and the close.
public protocol StompAuthenticator: Sendable {
    /// Authenticates a CONNECT; complete the future on `eventLoop` or anywhere.
    func authenticate(_ credentials: StompCredentials, on eventLoop: any EventLoop) -> EventLoopFuture<StompPrincipal>
}

/// What a session is about to do with a destination.
public enum StompAccess: Sendable, Equatable {
    case subscribe
    case send
}

/// Decides each SUBSCRIBE and SEND. Fail the future with ``StompRefusal`` to refuse.
public protocol StompAuthorizer: Sendable {
    /// Authorizes `access` to `destination` for `principal`.
    func authorize(_ access: StompAccess, destination: String, principal: StompPrincipal,
                   on eventLoop: any EventLoop) -> EventLoopFuture<Void>

    /// Whether `access` is granted already, by what the authorizer holds in memory: then the
    /// frame goes on without a future (a promise and a callback per SEND). `false` means "ask
    /// ``authorize(_:destination:principal:on:)``", not a refusal (the default).
    func grantsAtOnce(_ access: StompAccess, destination: String, principal: StompPrincipal) -> Bool

    /// Asks again, once a granted SUBSCRIBE's subscription is registered (its messages held
    /// back meanwhile), whether the grant still holds; fail to refuse it after all. Access taken
    /// away while ``authorize(_:destination:principal:on:)`` was answering (a member leaving
    /// while their SUBSCRIBE was checked) is ended by the application with
    /// ``StompBroker/endSubscriptions(ofUser:to:refusal:)``, which finds nothing to end until the
    /// subscription is registered: asking again after it closes that gap. Return nil where a
    /// grant cannot go stale (the default).
    func confirm(subscriptionTo destination: String, principal: StompPrincipal,
                 on eventLoop: any EventLoop) -> EventLoopFuture<Void>?
}

extension StompAuthorizer {
    /// Nothing is known at once: every frame asks.
    public func grantsAtOnce(_ access: StompAccess, destination: String, principal: StompPrincipal) -> Bool {
        false
    }

    /// Grants cannot go stale: nothing to ask again.
    public func confirm(subscriptionTo destination: String, principal: StompPrincipal,
                        on eventLoop: any EventLoop) -> EventLoopFuture<Void>? {
        nil
    }
}

/// A refusal by the application (not a protocol violation). The session learns of it on its
/// `/user/queue/errors` subscription and carries on; a session without one gets an ERROR and the
/// close, as does any refusal with `endsSession`.
public struct StompRefusal: Error, Sendable, Equatable {
    /// A stable machine code, e.g. `not-a-member`.
    public var code: String
    /// A human-readable explanation.
    public var message: String
    /// Whether the session must end (e.g. a bad token), whatever it subscribed to.
    public var endsSession: Bool

    /// Creates a refusal.
    public init(code: String, message: String, endsSession: Bool = false) {
        self.code = code
        self.message = message
        self.endsSession = endsSession
    }
}
