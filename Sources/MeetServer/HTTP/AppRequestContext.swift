import Hummingbird

/// What every request carries through the middleware chain: Hummingbird's core storage and,
/// once the bearer token has been checked, the id of the signed-in user.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by the authentication middleware when the request has a valid bearer token.
    public var userID: String?

    public init(source: Source) {
        coreContext = .init(source: source)
        userID = nil
    }
}
