import Foundation
import GRDB
import Hummingbird
import MeetCore
import Testing

/// The meetings feed over HTTP against the real server: it follows writes at once, and its
/// cursors survive a graceful restart.
@Suite struct FeedEndToEndTests {
    static let nearby = "/api/v1/meetings?lat=50.45&lon=30.52&radiusKm=5"

    static func titles(_ reply: TestReply) -> [String] {
        (reply.json["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    }

    @Test func theFeedFollowsJoinsAndCancellationsAtOnce() async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            // The first query loads the index; the writes below must reach it.
            #expect(Self.titles(try await server.send(.get, Self.nearby, token: bob.token)).isEmpty)
            let created = try await server.send(
                .post, "/api/v1/meetings", json: MeetingEndToEndTests.draft(["title": "pair", "maxParticipants": 2]), token: ann.token)
            let id = try #require(created.string("id"))
            #expect(Self.titles(try await server.send(.get, Self.nearby + "&hasSpots=true", token: bob.token)) == ["pair"])
            #expect(try await server.send(.post, "/api/v1/meetings/\(id)/join", token: bob.token).status == 200)
            #expect(Self.titles(try await server.send(.get, Self.nearby + "&hasSpots=true", token: bob.token)).isEmpty)
            #expect(try await server.send(.delete, "/api/v1/meetings/\(id)", token: ann.token).status == 200)
            #expect(Self.titles(try await server.send(.get, Self.nearby, token: bob.token)).isEmpty)
        }
    }

    /// Pages write the meetings they showed lately from kept texts (`PageMeeting.rendered`): a
    /// join and an edit still show in the very next page.
    @Test func theFeedsJSONFollowsJoinsAndEdits() async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let created = try await server.send(
                .post, "/api/v1/meetings", json: MeetingEndToEndTests.draft(["title": "pair", "maxParticipants": 3]), token: ann.token)
            let id = try #require(created.string("id"))
            func shown() async throws -> (title: String?, members: Int?) {
                let items = try await server.send(.get, Self.nearby, token: bob.token).json["items"] as? [[String: Any]]
                let meeting = try #require(items?.first)
                return (meeting["title"] as? String, meeting["memberCount"] as? Int)
            }
            #expect(try await shown() == ("pair", 1))
            #expect(try await shown() == ("pair", 1))
            #expect(try await server.send(.post, "/api/v1/meetings/\(id)/join", token: bob.token).status == 200)
            #expect(try await shown() == ("pair", 2))
            #expect(try await server.send(.patch, "/api/v1/meetings/\(id)", json: ["title": "trio"], token: ann.token).status == 200)
            #expect(try await shown() == ("trio", 2))
        }
    }

    /// The feed checks its bearer token inside its own read (BearerAuthMiddleware leaves it
    /// to the route): the answers must be those of any other route.
    @Test(.timeLimit(.minutes(1))) func theFeedRefusesTokensLikeEveryRoute() async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            #expect(try await server.send(.get, Self.nearby, token: ann.token).status == 200)
            let none = try await server.send(.get, Self.nearby)
            #expect(none.status == 401 && none.string("code") == "auth.required")
            let bogus = try await server.send(.get, Self.nearby, token: "not-a-token")
            #expect(bogus.status == 401 && bogus.string("code") == "auth.invalidToken")
            #expect(bogus.headers[.wwwAuthenticate] == "Bearer")
            let basic = try await server.send(.get, Self.nearby, headers: [.authorization: "Basic YTpi"])
            #expect(basic.status == 401 && basic.string("code") == "auth.invalidToken")
            // The token is checked before the query's values, as on every route.
            let both = try await server.send(.get, Self.nearby + "&limit=0", token: "not-a-token")
            #expect(both.status == 401 && both.string("code") == "auth.invalidToken")
            #expect(try await server.send(.get, Self.nearby + "&limit=0", token: ann.token).status == 422)
            let cursor = try await server.send(.get, Self.nearby + "&cursor=unknown.2", token: "not-a-token")
            #expect(cursor.status == 401 && cursor.string("code") == "auth.invalidToken")
            #expect(try await server.send(.post, "/api/v1/auth/logout", token: ann.token).status == 204)
            let loggedOut = try await server.send(.get, Self.nearby, token: ann.token)
            #expect(loggedOut.status == 401 && loggedOut.string("code") == "auth.invalidToken")
        }
    }

    /// The feed takes a token it found valid from memory (``RoomGrants``) until a write that
    /// could refuse it: another process's revocation or ban refuses it once the server reads
    /// the change log (at most 500 ms), and an expired token is refused at once.
    @Test(.timeLimit(.minutes(1))) func aRememberedTokenIsRefusedOnceRevokedBannedOrExpired() async throws {
        let clock = SkewedClock()
        try await TestServer.run(now: { clock.now }) { server in
            let other = try server.otherConnection()
            defer { try? other.close() }
            for sql in ["DELETE FROM accessToken WHERE userId = ?", "UPDATE user SET banned = 1 WHERE id = ?"] {
                let ann = try await server.signedInUser()
                #expect(try await server.send(.get, Self.nearby, token: ann.token).status == 200)
                try await other.write { db in try db.execute(sql: sql, arguments: [ann.id]) }
                let deadline = ContinuousClock.now + .seconds(15)
                var status = 200
                while status == 200, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                    status = try await server.send(.get, Self.nearby, token: ann.token).status
                }
                #expect(status == 401, "\(sql)")
            }
            let bob = try await server.signedInUser()
            #expect(try await server.send(.get, Self.nearby, token: bob.token).status == 200)
            clock.setAhead(by: AccountService.sessionLifetime + 1)
            #expect(try await server.send(.get, Self.nearby, token: bob.token).status == 401)
        }
    }

    @Test func aCursorCarriesOnAfterAGracefulRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("meetupd-restart-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (token, cursor, first) = try await TestServer.run(dataDirectory: directory) { server in
            let ann = try await server.signedInUser()
            for hours in [10.0, 20, 30] {
                let draft = MeetingEndToEndTests.draft(["title": "in \(Int(hours)) h", "startsAt": MeetingEndToEndTests.time(hours: hours)])
                #expect(try await server.send(.post, "/api/v1/meetings", json: draft, token: ann.token).status == 201)
            }
            let page = try await server.send(.get, Self.nearby + "&limit=2", token: ann.token)
            return (ann.token, try #require(page.string("nextCursor")), Self.titles(page))
        }
        #expect(first == ["in 10 h", "in 20 h"])
        try await TestServer.run(dataDirectory: directory) { server in
            let page = try await server.send(.get, Self.nearby + "&limit=2&cursor=\(cursor)", token: token)
            #expect(page.status == 200, "\(page.text)")
            #expect(Self.titles(page) == ["in 30 h"])
            #expect(page.json["nextCursor"] is NSNull)
            // Restored once: the rows are gone, and an unknown cursor is still refused.
            let stale = try await server.send(.get, Self.nearby + "&cursor=unknown.2", token: token)
            #expect(stale.status == 410)
        }
    }
}
