import Hummingbird
import MeetCore

/// What every request carries through the middleware chain: Hummingbird's core storage,
/// the client's address and, once the bearer token has been checked, the signed-in user.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by the bearer-token middleware when the request has a valid token.
    public internal(set) var authentication: AccountService.Authentication?
    /// Whether the request presented credentials that were refused (unknown, expired,
    /// revoked, banned user), so `requireUser()` can say so rather than "sign in".
    var presentedInvalidCredentials = false
    /// A bearer token the middleware left unchecked because the route checks it inside its
    /// own read (``BearerAuthMiddleware/checkedByRoute``); such a route never calls
    /// `requireUser()` while this is set.
    var uncheckedBearerToken: String?
    /// The client's IP address, for per-address throttling: the TCP peer's, or the one a
    /// trusted proxy forwarded (``ClientAddressMiddleware``).
    public internal(set) var clientAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress
    }

    /// The id of the signed-in user, if the request has a valid bearer token.
    public var userId: String? { authentication?.userId }

    /// The id of the signed-in user, or a 401 problem.
    public func requireUser() throws -> String {
        try requireAuthentication().userId
    }

    /// The checked bearer token, or a 401 problem saying whether one was missing or refused.
    func requireAuthentication() throws -> AccountService.Authentication {
        if let authentication { return authentication }
        throw Self.unauthenticated(presentedInvalidCredentials: presentedInvalidCredentials)
    }

    /// The 401 problem for a request without a valid bearer token: refused or missing.
    static func unauthenticated(presentedInvalidCredentials: Bool) -> MeetError {
        MeetError(presentedInvalidCredentials ? "auth.invalidToken" : "auth.required", status: 401,
                  headers: ["WWW-Authenticate": "Bearer"])
    }

    /// Request bodies beyond this many bytes are refused with 413.
    public var maxUploadSize: Int { 1 << 20 }

    public var requestDecoder: CheckedJSONDecoder { CheckedJSONDecoder() }
}
