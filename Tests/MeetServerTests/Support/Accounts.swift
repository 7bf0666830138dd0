import Foundation
import Testing

/// A user who has registered, confirmed the address and signed in.
struct SignedInUser: Sendable {
    var id: String
    var email: String
    var password: String
    var token: String
}

extension TestServer {
    static let defaultPassword = "correct horse battery"

    /// Registers `email` and confirms it with the mailed token.
    func registerConfirmed(_ email: String, password: String = defaultPassword, displayName: String = "Olena") async throws -> String {
        let registered = try await send(.post, "/api/v1/auth/register", json: ["email": email, "password": password, "displayName": displayName])
        #expect(registered.status == 201, "\(registered.text)")
        let token = try await mailedToken(to: email, action: "confirm")
        let confirmed = try await send(.post, "/api/v1/auth/confirm", json: ["token": token])
        #expect(confirmed.status == 200, "\(confirmed.text)")
        return try #require(registered.string("id"))
    }

    /// Logs in and returns the bearer token.
    func login(_ email: String, password: String = defaultPassword) async throws -> String {
        let reply = try await send(.post, "/api/v1/auth/login", json: ["email": email, "password": password])
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(reply.string("accessToken"))
    }

    /// Registers, confirms and signs in a new user.
    func signedInUser(_ email: String = "user-\(UUID().uuidString.prefix(8).lowercased())@example.org") async throws -> SignedInUser {
        let id = try await registerConfirmed(email)
        return SignedInUser(id: id, email: email, password: Self.defaultPassword, token: try await login(email))
    }
}
