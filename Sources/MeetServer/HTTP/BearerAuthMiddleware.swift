import Foundation
import Hummingbird
import MeetCore
import Stomp

/// Reads `Authorization: Bearer <token>` and, when the token is valid, records the signed-in
/// user in the context. Requests without a token pass through; handlers that need a user
/// call `context.requireUser()`.
struct BearerAuthMiddleware: RouterMiddleware {
    /// A route by method and path as the router spells it (`/api/v1/meetings`).
    struct Route: Hashable {
        var method: HTTPRequest.Method
        var path: String
    }

    let accounts: AccountService
    /// Routes that check the token themselves, inside the one read they make anyway (the
    /// feed, issue 21: each read is a hop to a reader's thread); they find it in
    /// `context.uncheckedBearerToken`.
    var checkedByRoute: Set<Route> = []

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            return try await next(request, context)
        }
        var context = context
        let token = BearerCredential.token(in: header)
        if let token, let path = context.endpointPath, checkedByRoute.contains(Route(method: request.method, path: path)) {
            context.uncheckedBearerToken = token
        } else if let token, let authentication = try await accounts.authenticate(bearer: token) {
            context.authentication = authentication
        } else {
            context.presentedInvalidCredentials = true
        }
        return try await next(request, context)
    }
}
