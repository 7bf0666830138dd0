import MeetCore
import NIOCore
import Stomp

/// STOMP sessions authenticate with the same bearer tokens as REST: `Authorization: Bearer` or
/// `passcode` in CONNECT, or the token of the WebSocket upgrade request.
struct StompAccountAuthenticator: StompAuthenticator {
    let accounts: AccountService

    func authenticate(_ credentials: StompCredentials, on eventLoop: any EventLoop) -> EventLoopFuture<StompPrincipal> {
        guard let token = credentials.bearerToken, !token.isEmpty else {
            return eventLoop.makeFailedFuture(Self.refusal("a bearer token is required"))
        }
        return eventLoop.makeFutureWithTask {
            guard let authentication = try await accounts.authenticate(bearer: token) else {
                throw Self.refusal("invalid or expired token")
            }
            return StompPrincipal(userId: authentication.userId, credential: token)
        }
    }

    private static func refusal(_ message: String) -> StompRefusal {
        StompRefusal(code: "auth.invalidToken", message: message, endsSession: true)
    }
}
