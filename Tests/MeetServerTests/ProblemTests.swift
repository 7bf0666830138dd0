import Foundation
import Testing

@Suite("problem+json for every failure")
struct ProblemTests {
    @Test func unknownRouteIs404Problem() async throws {
        try await TestServer.run { server in
            let reply = try await server.send(.get, "/api/v1/no/such/thing")
            #expect(reply.status == 404)
            #expect(reply.headers[.contentType] == "application/problem+json")
            #expect(reply.string("code") == "route.notFound")
            #expect(reply.json["status"] as? Int == 404)
            #expect(reply.string("type") == "urn:meetupd:problem:route.notFound")
            #expect(reply.string("title")?.isEmpty == false)
            #expect(reply.string("instance") == "/api/v1/no/such/thing")
        }
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        try await TestServer.run { server in
            let reply = try await server.send(.delete, "/api/v1/auth/login")
            #expect(reply.status == 405)
            #expect(reply.string("code") == "request.methodNotAllowed")
            #expect(reply.headers[.allow] == "POST")
            let me = try await server.send(.post, "/api/v1/me")
            #expect(me.status == 405)
            #expect(me.headers[.allow] == "GET")
        }
    }

    @Test func oversizedBodyIs413() async throws {
        try await TestServer.run { server in
            let huge = "{\"email\":\"" + String(repeating: "a", count: 2 << 20) + "\"}"
            let reply = try await server.send(.post, "/api/v1/auth/login", raw: huge)
            #expect(reply.status == 413)
            #expect(reply.string("code") == "request.tooLarge")
        }
    }

    @Test func deeplyNestedJSONIsRefused() async throws {
        try await TestServer.run { server in
            let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
            let reply = try await server.send(.post, "/api/v1/auth/login", raw: deep)
            #expect(reply.status == 400)
            #expect(reply.string("code") == "request.tooDeep")
        }
    }

    @Test func nonJSONBodyIs415() async throws {
        try await TestServer.run { server in
            let reply = try await server.send(.post, "/api/v1/auth/login", raw: "email=a", headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(reply.status == 415)
            #expect(reply.string("code") == "request.unsupportedMediaType")
        }
    }

    @Test func healthAnswers() async throws {
        try await TestServer.run { server in
            let reply = try await server.send(.get, "/health")
            #expect(reply.status == 200)
            #expect(reply.string("status") == "ok")
        }
    }
}

@Suite("Localized problems and mails")
struct LocalizedProblemTests {
    @Test func titleAndDetailFollowAcceptLanguage() async throws {
        try await TestServer.run { server in
            let english = try await server.send(.get, "/api/v1/me")
            #expect(english.string("title") == "Sign-in required")
            let ukrainian = try await server.send(.get, "/api/v1/me", headers: [.acceptLanguage: "de;q=1, uk;q=0.8, en;q=0.5"])
            #expect(ukrainian.string("title") == "Потрібно увійти")
            #expect(ukrainian.string("code") == "auth.required")
        }
    }

    @Test func fieldProblemsAreLocalizedWithPlurals() async throws {
        try await TestServer.run { server in
            let reply = try await server.send(
                .post, "/api/v1/auth/register", json: ["email": "a@example.org", "password": "short", "displayName": "A"],
                headers: [.acceptLanguage: "uk"])
            let errors = try #require(reply.json["errors"] as? [[String: Any]])
            #expect(errors.first?["detail"] as? String == "Пароль має містити щонайменше 8 символів.")
        }
    }

    @Test func ukrainianUsersGetUkrainianMail() async throws {
        try await TestServer.run { server in
            try await server.send(.post, "/api/v1/auth/register", json: [
                "email": "taras@example.org", "password": "correct horse battery", "displayName": "Тарас",
            ], headers: [.acceptLanguage: "uk-UA,uk;q=0.9"])
            let mail = try #require(try await server.mails(to: "taras@example.org").last)
            // The subject is RFC 2047-encoded; both parts greet in Ukrainian.
            #expect(mail.raw.contains("Subject: =?UTF-8?B?"))
            #expect(mail.text.contains("Вітаємо, Тарас!") && mail.html?.contains("Вітаємо, Тарас!") == true)
            #expect(mail.html?.contains("<html lang=\"uk\">") == true)
            #expect(mail.token(for: "confirm") != nil)
        }
    }
}

@Suite("Metrics")
struct MetricsTests {
    @Test func requestsAreCountedByRouteAndStatus() async throws {
        try await TestServer.run { server in
            try await server.send(.post, "/api/v1/auth/login", json: ["email": "a@example.org", "password": "whatever it is"])
            try await server.send(.get, "/no/such/page")
            let metrics = try await server.send(.get, "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains(#"http_requests_total{method="POST",route="/api/v1/auth/login",status="401"} 1"#))
            #expect(metrics.text.contains(#"http_requests_total{method="GET",route="NotFound",status="404"} 1"#))
            #expect(metrics.text.contains(#"http_request_duration_seconds_count{method="POST",route="/api/v1/auth/login",status="401"} 1"#))
        }
    }
}
