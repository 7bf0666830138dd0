import Foundation
import Synchronization
import Testing

/// The real clock, moved ahead by hand.
final class SkewedClock: Sendable {
    private let skew = Mutex<TimeInterval>(0)
    var now: Date { Date() + skew.withLock { $0 } }
    func setAhead(by seconds: TimeInterval) { skew.withLock { $0 = seconds } }
}

@Suite("Expiry over HTTP")
struct ExpiryTests {
    let clock = SkewedClock()

    func run(_ body: @Sendable (TestServer) async throws -> Void) async throws {
        try await TestServer.run(now: { [clock] in clock.now }, body)
    }

    @Test func confirmationLinksExpireAfterADay() async throws {
        try await run { server in
            let email = "late@example.org"
            try await server.send(.post, "/api/v1/auth/register", json: ["email": email, "password": "correct horse battery", "displayName": "L"])
            let token = try await server.mailedToken(to: email, action: "confirm")
            clock.setAhead(by: 24 * 3600 + 60)
            let reply = try await server.send(.post, "/api/v1/auth/confirm", json: ["token": token])
            #expect(reply.status == 410)
            #expect(reply.string("code") == "token.expired")
        }
    }

    @Test func resetLinksExpireAfterAnHour() async throws {
        try await run { server in
            let user = try await server.signedInUser()
            try await server.send(.post, "/api/v1/auth/password/forgot", json: ["email": user.email])
            let token = try await server.mailedToken(to: user.email, action: "reset")
            clock.setAhead(by: 3600 + 60)
            let reply = try await server.send(.post, "/api/v1/auth/password/reset", json: ["token": token, "newPassword": "a brand new secret"])
            #expect(reply.status == 410)
            #expect(reply.string("code") == "token.expired")
            #expect(try await server.send(.get, "/api/v1/me", token: user.token).status == 200)
        }
    }

    @Test func sessionsExpireAfterThirtyDays() async throws {
        try await run { server in
            let user = try await server.signedInUser()
            clock.setAhead(by: 29 * 24 * 3600)
            #expect(try await server.send(.get, "/api/v1/me", token: user.token).status == 200)
            clock.setAhead(by: 30 * 24 * 3600 + 60)
            let expired = try await server.send(.get, "/api/v1/me", token: user.token)
            #expect(expired.status == 401)
            #expect(expired.string("code") == "auth.invalidToken")
        }
    }
}
