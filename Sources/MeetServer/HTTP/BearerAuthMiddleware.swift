import Foundation
import Hummingbird
import MeetCore
import Stomp

/// Reads `Authorization: Bearer <token>` and, when the token is valid, records the signed-in
/// user in the context. Requests without a token pass through; handlers that need a user
/// call `context.requireUser()`.
struct BearerAuthMiddleware: RouterMiddleware {
    let accounts: AccountService

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            return try await next(request, context)
        }
        var context = context
        if let token = BearerCredential.token(in: header), let authentication = try await accounts.authenticate(bearer: token) {
            context.authentication = authentication
        } else {
            context.presentedInvalidCredentials = true
        }
        return try await next(request, context)
    }
}
