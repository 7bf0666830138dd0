import Foundation
import Hummingbird
import MeetCore

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
        if let token = Self.bearerToken(in: header), let authentication = try await accounts.authenticate(bearer: token) {
            context.authentication = authentication
        } else {
            context.presentedInvalidCredentials = true
        }
        return try await next(request, context)
    }

    /// The token of a `Bearer` credential (the scheme is case-insensitive, RFC 9110 §11.1).
    static func bearerToken(in header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
