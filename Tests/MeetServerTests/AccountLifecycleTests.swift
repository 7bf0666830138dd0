import Foundation
import Testing

@Suite("Account life cycle over HTTP")
struct AccountLifecycleTests {
    @Test func registerConfirmLoginMeLogout() async throws {
        try await TestServer.run { server in
            let email = "olena@example.org"
            let registered = try await server.send(.post, "/api/v1/auth/register", json: [
                "email": "  Olena@Example.ORG ", "password": "correct horse battery", "displayName": "Olena", "locale": "uk",
            ])
            #expect(registered.status == 201)
            #expect(registered.string("email") == email)
            #expect(registered.string("locale") == "uk")
            #expect(registered.json["emailConfirmed"] as? Bool == false)
            #expect(registered.json["password"] == nil && registered.json["passwordHash"] == nil)

            let mail = try #require(try await server.mails(to: email).last)
            #expect(mail.headers["content-type"]?.hasPrefix("multipart/alternative;") == true)
            #expect(mail.headers["message-id"]?.hasPrefix("<") == true)
            #expect(mail.text.contains("/auth/confirm?token=") && mail.html?.contains("/auth/confirm?token=") == true)

            let unconfirmed = try await server.send(.post, "/api/v1/auth/login", json: ["email": email, "password": "correct horse battery"])
            #expect(unconfirmed.status == 403)
            #expect(unconfirmed.string("code") == "auth.emailNotConfirmed")

            let token = try await server.mailedToken(to: email, action: "confirm")
            let confirmed = try await server.send(.post, "/api/v1/auth/confirm", json: ["token": token])
            #expect(confirmed.status == 200)
            #expect(confirmed.json["emailConfirmed"] as? Bool == true)

            let login = try await server.send(.post, "/api/v1/auth/login", json: ["email": "OLENA@example.org", "password": "correct horse battery"])
            #expect(login.status == 200)
            #expect(login.string("tokenType") == "Bearer")
            let accessToken = try #require(login.string("accessToken"))
            let expiresAt = try #require(login.string("expiresAt"))
            #expect(try Date(expiresAt, strategy: .iso8601) > Date())
            #expect((login.json["user"] as? [String: Any])?["id"] as? String == registered.string("id"))

            let me = try await server.send(.get, "/api/v1/me", token: accessToken)
            #expect(me.status == 200)
            #expect(me.string("id") == registered.string("id"))
            #expect(me.string("displayName") == "Olena")

            let logout = try await server.send(.post, "/api/v1/auth/logout", token: accessToken)
            #expect(logout.status == 204)
            let afterLogout = try await server.send(.get, "/api/v1/me", token: accessToken)
            #expect(afterLogout.status == 401)
            #expect(afterLogout.string("code") == "auth.invalidToken")
            #expect(afterLogout.headers[.wwwAuthenticate] == "Bearer")
        }
    }

    @Test func sessionsAreIndependent() async throws {
        try await TestServer.run { server in
            let user = try await server.signedInUser()
            let second = try await server.login(user.email)
            #expect(second != user.token)
            try await server.send(.post, "/api/v1/auth/logout", token: user.token)
            #expect(try await server.send(.get, "/api/v1/me", token: user.token).status == 401)
            #expect(try await server.send(.get, "/api/v1/me", token: second).status == 200)
        }
    }

    @Test func passwordResetEndsEverySession() async throws {
        try await TestServer.run { server in
            let user = try await server.signedInUser()
            let other = try await server.login(user.email)

            let forgot = try await server.send(.post, "/api/v1/auth/password/forgot", json: ["email": user.email])
            #expect(forgot.status == 202)
            let resetToken = try await server.mailedToken(to: user.email, action: "reset")

            let reset = try await server.send(.post, "/api/v1/auth/password/reset", json: ["token": resetToken, "newPassword": "a brand new secret"])
            #expect(reset.status == 204)
            #expect(try await server.send(.get, "/api/v1/me", token: user.token).status == 401)
            #expect(try await server.send(.get, "/api/v1/me", token: other).status == 401)

            let oldPassword = try await server.send(.post, "/api/v1/auth/login", json: ["email": user.email, "password": user.password])
            #expect(oldPassword.status == 401)
            _ = try await server.login(user.email, password: "a brand new secret")

            let reused = try await server.send(.post, "/api/v1/auth/password/reset", json: ["token": resetToken, "newPassword": "yet another secret"])
            #expect(reused.status == 410)
            #expect(reused.string("code") == "token.used")
        }
    }

    @Test func forgotPasswordDoesNotRevealAccounts() async throws {
        try await TestServer.run { server in
            let unknown = try await server.send(.post, "/api/v1/auth/password/forgot", json: ["email": "nobody@example.org"])
            #expect(unknown.status == 202)
            #expect(unknown.text.isEmpty)
            #expect(try await server.mails(to: "nobody@example.org", atLeast: 0).isEmpty)
        }
    }
}
