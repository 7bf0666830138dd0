import Foundation
import Testing

@Suite("Account refusals")
struct AccountRefusalTests {
    @Test func invalidRegistrationNamesEveryField() async throws {
        try await TestServer.run { server in
            let reply = try await server.send(.post, "/api/v1/auth/register", json: [
                "email": "not-an-address", "password": "password1", "displayName": "  ", "locale": "english!",
            ])
            #expect(reply.status == 422)
            #expect(reply.string("code") == "request.invalidFields")
            let errors = try #require(reply.json["errors"] as? [[String: Any]])
            let byField = Dictionary(uniqueKeysWithValues: errors.map { ($0["field"] as? String ?? "", $0["code"] as? String ?? "") })
            #expect(byField == ["email": "email.invalid", "password": "password.common", "displayName": "field.required", "locale": "locale.invalid"])
        }
    }

    @Test func shortPasswordIsRefused() async throws {
        try await TestServer.run { server in
            let reply = try await server.send(.post, "/api/v1/auth/register", json: ["email": "a@example.org", "password": "short", "displayName": "A"])
            #expect(reply.status == 422)
            let errors = try #require(reply.json["errors"] as? [[String: Any]])
            #expect(errors.map { $0["code"] as? String } == ["password.tooShort"])
        }
    }

    @Test func duplicateAddressConflicts() async throws {
        try await TestServer.run { server in
            _ = try await server.registerConfirmed("taken@example.org")
            let again = try await server.send(.post, "/api/v1/auth/register", json: ["email": "TAKEN@example.org", "password": "another good one", "displayName": "B"])
            #expect(again.status == 409)
            #expect(again.string("code") == "account.emailTaken")
        }
    }

    @Test func missingAndMistypedFields() async throws {
        try await TestServer.run { server in
            let missing = try await server.send(.post, "/api/v1/auth/login", json: ["email": "a@example.org"])
            #expect(missing.status == 422)
            let missingErrors = try #require(missing.json["errors"] as? [[String: Any]])
            #expect(missingErrors.first?["field"] as? String == "password")
            #expect(missingErrors.first?["code"] as? String == "field.required")

            let mistyped = try await server.send(.post, "/api/v1/auth/login", json: ["email": "a@example.org", "password": 12345])
            #expect(mistyped.status == 422)
            let mistypedErrors = try #require(mistyped.json["errors"] as? [[String: Any]])
            #expect(mistypedErrors.first?["field"] as? String == "password")
            #expect(mistypedErrors.first?["code"] as? String == "field.wrongType")
        }
    }

    @Test(arguments: ["{\"email\": ", "", "not json", "[1,2,3]"])
    func malformedJSON(body: String) async throws {
        try await TestServer.run { server in
            let reply = try await server.send(.post, "/api/v1/auth/login", raw: body)
            #expect(reply.status == 400)
            #expect(reply.string("code") == "request.malformedJSON")
            #expect(reply.headers[.contentType] == "application/problem+json")
        }
    }

    @Test func wrongPasswordAndUnknownAddressLookAlike() async throws {
        try await TestServer.run { server in
            let user = try await server.signedInUser()
            let wrong = try await server.send(.post, "/api/v1/auth/login", json: ["email": user.email, "password": "not the password"])
            let unknown = try await server.send(.post, "/api/v1/auth/login", json: ["email": "ghost@example.org", "password": "not the password"])
            #expect(wrong.status == 401)
            #expect(unknown.status == 401)
            #expect(wrong.string("code") == "auth.invalidCredentials")
            #expect(unknown.string("code") == "auth.invalidCredentials")
        }
    }

    @Test func confirmationTokensWorkOnce() async throws {
        try await TestServer.run { server in
            let email = "once@example.org"
            try await server.send(.post, "/api/v1/auth/register", json: ["email": email, "password": "correct horse battery", "displayName": "O"])
            let token = try await server.mailedToken(to: email, action: "confirm")
            #expect(try await server.send(.post, "/api/v1/auth/confirm", json: ["token": token]).status == 200)
            let again = try await server.send(.post, "/api/v1/auth/confirm", json: ["token": token])
            #expect(again.status == 410)
            #expect(again.string("code") == "token.used")
            let bogus = try await server.send(.post, "/api/v1/auth/confirm", json: ["token": "bogus"])
            #expect(bogus.status == 400)
            #expect(bogus.string("code") == "token.invalid")
        }
    }

    @Test func aConfirmationTokenCannotResetAPassword() async throws {
        try await TestServer.run { server in
            let email = "mixup@example.org"
            try await server.send(.post, "/api/v1/auth/register", json: ["email": email, "password": "correct horse battery", "displayName": "M"])
            let token = try await server.mailedToken(to: email, action: "confirm")
            let reply = try await server.send(.post, "/api/v1/auth/password/reset", json: ["token": token, "newPassword": "a brand new secret"])
            #expect(reply.status == 400)
            #expect(reply.string("code") == "token.invalid")
        }
    }

    @Test func protectedRoutesNeedAToken() async throws {
        try await TestServer.run { server in
            let none = try await server.send(.get, "/api/v1/me")
            #expect(none.status == 401)
            #expect(none.string("code") == "auth.required")
            let bogus = try await server.send(.get, "/api/v1/me", token: "not-a-token")
            #expect(bogus.string("code") == "auth.invalidToken")
            let basic = try await server.send(.get, "/api/v1/me", headers: [.authorization: "Basic YTpi"])
            #expect(basic.status == 401)
            #expect(try await server.send(.post, "/api/v1/auth/logout").status == 401)
        }
    }

    @Test func repeatedFailuresAreThrottled() async throws {
        try await TestServer.run { server in
            let user = try await server.signedInUser()
            for _ in 0..<5 {
                let reply = try await server.send(.post, "/api/v1/auth/login", json: ["email": user.email, "password": "wrong password"])
                #expect(reply.status == 401)
            }
            // Even the right password waits now: the account is locked for a while.
            let throttled = try await server.send(.post, "/api/v1/auth/login", json: ["email": user.email, "password": user.password])
            #expect(throttled.status == 429)
            #expect(throttled.string("code") == "auth.tooManyAttempts")
            let retryAfter = try #require(throttled.headers[.retryAfter].flatMap { Int($0) })
            #expect(retryAfter > 0 && retryAfter <= 15 * 60)
            let inUkrainian = try await server.send(
                .post, "/api/v1/auth/login", json: ["email": user.email, "password": user.password], headers: [.acceptLanguage: "uk"])
            #expect(inUkrainian.string("detail")?.hasPrefix("Спробуйте знову через ") == true)
            // Another account from the same address is not locked by this one's failures.
            let other = try await server.signedInUser()
            #expect(try await server.send(.get, "/api/v1/me", token: other.token).status == 200)
        }
    }
}
