import Foundation
import Testing

/// `NULQueryMiddleware` on a real server: a query value that decodes to U+0000 is refused with
/// 422 naming it, and every other escape passes (the query is decoded for the check only when
/// it has `%00`).
@Suite struct NULQueryTests {
    @Test func aNULInAQueryValueIsRefusedAndOtherEscapesPass() async throws {
        try await TestServer.run { server in
            let user = try await server.signedInUser()
            // The feed reads `cursor` as it comes (without the middleware: `field.invalid`).
            for query in ["cursor=Mal%00lory", "limit=5&cursor=a%2500%00"] {
                let refused = try await server.send(.get, "/api/v1/meetings?" + query, token: user.token)
                #expect(refused.status == 422, "\(query): \(refused.text)")
                let errors = refused.json["errors"] as? [[String: Any]] ?? []
                #expect(errors.count == 1 && errors.first?["field"] as? String == "cursor", "\(query): \(refused.text)")
                #expect(errors.first?["code"] as? String == "field.invalidCharacters")
            }
            // An overlong NUL decodes to U+FFFD, `+` stays `+`, `%2500` is the text "%00".
            for query in ["q=%C0%80", "q=a+b", "q=100%25", "q=%2500", "q=%0", "q=0%200"] {
                let reply = try await server.send(.get, "/api/v1/users?" + query, token: user.token)
                #expect(reply.status == 200, "\(query): \(reply.text)")
            }
        }
    }
}
