import Foundation
import Testing

extension TestServer {
    /// Registers, confirms and signs in a user called `name`.
    func person(_ name: String) async throws -> SignedInUser {
        let email = "\(name.lowercased())-\(UUID().uuidString.prefix(6).lowercased())@example.org"
        let id = try await registerConfirmed(email, displayName: name)
        return SignedInUser(id: id, email: email, password: Self.defaultPassword, token: try await login(email))
    }

    /// The ids in the array `key` of the JSON object `path` answers for `user`.
    /// The list at `path`, checked to answer the list envelope (`items`, `nextCursor`).
    func items(_ path: String, as user: SignedInUser) async throws -> [[String: Any]] {
        let reply = try await send(.get, path, token: user.token)
        #expect(reply.status == 200, "\(path): \(reply.text)")
        #expect(reply.json["nextCursor"] is NSNull, "\(path): \(reply.text)")
        return reply.json["items"] as? [[String: Any]] ?? []
    }

    func ids(_ path: String, as user: SignedInUser) async throws -> [String] {
        try await items(path, as: user).compactMap { $0["id"] as? String }
    }

    /// The user's pending friend requests sent to them (`incoming`) or by them.
    func requestIds(incoming: Bool, as user: SignedInUser) async throws -> [String] {
        try await items("/api/v1/friends/requests", as: user)
            .filter { ($0[incoming ? "to" : "from"] as? [String: Any])?["id"] as? String == user.id }
            .compactMap { $0["id"] as? String }
    }
}

@Suite("Friends over HTTP")
struct FriendRoutesTests {
    @Test func requestAcceptListUnfriend() async throws {
        try await TestServer.run { server in
            let (anna, bohdan) = (try await server.person("Anna"), try await server.person("Bohdan"))
            let sent = try await server.send(.post, "/api/v1/friends/requests", json: ["userId": bohdan.id], token: anna.token)
            #expect(sent.status == 201)
            #expect(sent.string("status") == "pending")
            #expect((sent.json["to"] as? [String: Any])?["displayName"] as? String == "Bohdan")
            let requestId = try #require(sent.string("id"))

            #expect(try await server.requestIds(incoming: true, as: bohdan) == [requestId])
            #expect(try await server.requestIds(incoming: false, as: anna) == [requestId])
            let stranger = try await server.send(.post, "/api/v1/friends/requests/\(requestId)/accept", token: anna.token)
            #expect(stranger.status == 404 && stranger.string("code") == "friendRequest.notFound")

            let accepted = try await server.send(.post, "/api/v1/friends/requests/\(requestId)/accept", token: bohdan.token)
            #expect(accepted.status == 200 && accepted.string("status") == "accepted")
            #expect(try await server.ids("/api/v1/friends", as: anna) == [bohdan.id])
            #expect(try await server.ids("/api/v1/friends", as: bohdan) == [anna.id])
            let again = try await server.send(.post, "/api/v1/friends/requests", json: ["userId": anna.id], token: bohdan.token)
            #expect(again.status == 409 && again.string("code") == "friend.alreadyFriends")

            #expect(try await server.send(.delete, "/api/v1/friends/\(anna.id)", token: bohdan.token).status == 204)
            #expect(try await server.ids("/api/v1/friends", as: anna).isEmpty)
            let gone = try await server.send(.delete, "/api/v1/friends/\(anna.id)", token: bohdan.token)
            #expect(gone.status == 404 && gone.string("code") == "friend.notFriends")
        }
    }

    @Test func declineCancelAndAskingBack() async throws {
        try await TestServer.run { server in
            let (anna, bohdan) = (try await server.person("Anna"), try await server.person("Bohdan"))
            func ask(_ from: SignedInUser, _ to: SignedInUser) async throws -> TestReply {
                try await server.send(.post, "/api/v1/friends/requests", json: ["userId": to.id], token: from.token)
            }
            let first = try #require(try await ask(anna, bohdan).string("id"))
            #expect(try await server.send(.post, "/api/v1/friends/requests/\(first)/decline", token: anna.token).status == 404)
            #expect(try await server.send(.post, "/api/v1/friends/requests/\(first)/decline", token: bohdan.token).status == 204)
            #expect(try await server.requestIds(incoming: false, as: anna).isEmpty)

            let second = try #require(try await ask(anna, bohdan).string("id"))
            #expect(try await server.send(.delete, "/api/v1/friends/requests/\(second)", token: bohdan.token).status == 404)
            #expect(try await server.send(.delete, "/api/v1/friends/requests/\(second)", token: anna.token).status == 204)
            #expect(try await server.requestIds(incoming: true, as: bohdan).isEmpty)

            _ = try await ask(anna, bohdan)
            let back = try await ask(bohdan, anna)
            #expect(back.status == 200 && back.string("status") == "accepted")
            #expect(try await server.ids("/api/v1/friends", as: anna) == [bohdan.id])
        }
    }

    @Test func blockingHidesBothWaysAndLooksLikeNobody() async throws {
        try await TestServer.run { server in
            let (anna, bohdan, chrystia) = (try await server.person("Anna"), try await server.person("Bohdan"), try await server.person("Chrystia"))
            let request = try #require(try await server.send(.post, "/api/v1/friends/requests", json: ["userId": bohdan.id], token: anna.token).string("id"))
            _ = try await server.send(.post, "/api/v1/friends/requests/\(request)/accept", token: bohdan.token)
            // Chrystia is Bohdan's friend, so Anna would be suggested to her...
            let viaBohdan = try #require(try await server.send(.post, "/api/v1/friends/requests", json: ["userId": bohdan.id], token: chrystia.token).string("id"))
            _ = try await server.send(.post, "/api/v1/friends/requests/\(viaBohdan)/accept", token: bohdan.token)
            #expect(try await server.ids("/api/v1/friends/suggestions", as: chrystia) == [anna.id])

            #expect(try await server.send(.post, "/api/v1/blocks", json: ["userId": bohdan.id], token: anna.token).status == 204)
            #expect(try await server.send(.post, "/api/v1/blocks", json: ["userId": chrystia.id], token: anna.token).status == 204)
            #expect(try await server.ids("/api/v1/blocks", as: anna) == [chrystia.id, bohdan.id])
            #expect(try await server.ids("/api/v1/friends", as: anna).isEmpty)
            #expect(try await server.ids("/api/v1/friends", as: bohdan) == [chrystia.id])
            // ...but not once she is blocked.
            #expect(try await server.ids("/api/v1/friends/suggestions", as: chrystia).isEmpty)

            // Asking someone who blocked you reads exactly like asking nobody.
            let blocked = try await server.send(.post, "/api/v1/friends/requests", json: ["userId": anna.id], token: bohdan.token)
            let nobody = try await server.send(.post, "/api/v1/friends/requests", json: ["userId": "no-such-user"], token: bohdan.token)
            #expect(blocked.status == 404 && blocked.string("code") == "user.notFound")
            #expect(NSDictionary(dictionary: blocked.json) == NSDictionary(dictionary: nobody.json))
            // The blocker cannot ask either, until the block is lifted.
            let blocker = try await server.send(.post, "/api/v1/friends/requests", json: ["userId": bohdan.id], token: anna.token)
            #expect(blocker.status == 404 && blocker.string("code") == "user.notFound")

            #expect(try await server.send(.delete, "/api/v1/blocks/\(bohdan.id)", token: anna.token).status == 204)
            let notBlocked = try await server.send(.delete, "/api/v1/blocks/\(bohdan.id)", token: anna.token)
            #expect(notBlocked.status == 404 && notBlocked.string("code") == "block.notFound")
            #expect(try await server.send(.post, "/api/v1/friends/requests", json: ["userId": anna.id], token: bohdan.token).status == 201)
        }
    }

    @Test func blockingHidesUsersFromProfilesSearchAndNearby() async throws {
        try await TestServer.run { server in
            let (anna, bohdan) = (try await server.person("Anna"), try await server.person("Bohdan"))
            for user in [anna, bohdan] {
                let located = try await server.send(.put, "/api/v1/me/location", json: ["lat": 50.45, "lon": 30.52, "share": true], token: user.token)
                #expect(located.status == 200, "\(located.text)")
            }
            func sees(_ viewer: SignedInUser, _ other: SignedInUser) async throws -> [Bool] {
                let profile = try await server.send(.get, "/api/v1/users/\(other.id)", token: viewer.token)
                let search = try await server.ids("/api/v1/users?q=\(other.id == anna.id ? "Anna" : "Bohdan")", as: viewer)
                let nearby = try await server.send(.get, "/api/v1/users/nearby?lat=50.45&lon=30.52&radiusKm=5", token: viewer.token)
                let neighbours = (nearby.json["items"] as? [[String: Any]] ?? []).compactMap { ($0["user"] as? [String: Any])?["id"] as? String }
                return [profile.status == 200, search.contains(other.id), neighbours.contains(other.id)]
            }
            #expect(try await sees(anna, bohdan) == [true, true, true])
            #expect(try await server.send(.post, "/api/v1/blocks", json: ["userId": bohdan.id], token: anna.token).status == 204)
            #expect(try await sees(anna, bohdan) == [false, false, false])
            #expect(try await sees(bohdan, anna) == [false, false, false])
            #expect(try await server.send(.delete, "/api/v1/blocks/\(bohdan.id)", token: anna.token).status == 204)
            #expect(try await sees(bohdan, anna) == [true, true, true])
        }
    }

    @Test func badRequestsAndStrangers() async throws {
        try await TestServer.run { server in
            let anna = try await server.person("Anna")
            let missing = try await server.send(.post, "/api/v1/friends/requests", json: [:], token: anna.token)
            #expect(missing.status == 422)
            #expect((missing.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "userId")
            let myself = try await server.send(.post, "/api/v1/friends/requests", json: ["userId": anna.id], token: anna.token)
            #expect(myself.status == 422 && myself.string("code") == "friend.self")
            let blockNobody = try await server.send(.post, "/api/v1/blocks", json: ["userId": "no-such-user"], token: anna.token)
            #expect(blockNobody.status == 404 && blockNobody.string("code") == "user.notFound")
            let badLimit = try await server.send(.get, "/api/v1/friends/suggestions?limit=500", token: anna.token)
            #expect(badLimit.status == 422)
            for (method, path) in [("GET", "/api/v1/friends"), ("GET", "/api/v1/friends/requests"), ("GET", "/api/v1/friends/suggestions"),
                                   ("GET", "/api/v1/blocks"), ("DELETE", "/api/v1/friends/x"), ("DELETE", "/api/v1/blocks/x")] {
                let reply = try await server.send(.init(method)!, path)
                #expect(reply.status == 401, "\(method) \(path)")
            }
        }
    }
}
