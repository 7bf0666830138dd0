import Foundation
import HTTPTypes
import Testing

/// Profiles, people search and nearby over a real server: loopback sockets, a real SQLite file.
@Suite struct ProfileEndToEndTests {
    static let ukrainian: HTTPFields = [.acceptLanguage: "uk-UA,uk;q=0.9,en;q=0.5"]

    @Test func profileUpdatesAreStoredAndShownToOthers() async throws {
        try await TestServer.run { server in
            let olena = try await server.signedInUser()
            let empty = try await server.send(.get, "/api/v1/me/profile", token: olena.token)
            #expect(empty.status == 200)
            #expect(empty.string("displayName") == "Olena" && empty.string("bio") == "")

            let profile: [String: any Sendable] = [
                "displayName": "Olena K.", "bio": "Weekend hikes", "birthDate": "1990-04-12", "city": "Lviv",
                "activityIds": ["hiking", "yoga"], "languages": ["uk", "en"],
            ]
            let saved = try await server.send(.put, "/api/v1/me/profile", json: profile, token: olena.token)
            #expect(saved.status == 200, "\(saved.text)")
            #expect(saved.string("birthDate") == "1990-04-12")
            #expect(saved.json["activityIds"] as? [String] == ["hiking", "yoga"])
            let again = try await server.send(.get, "/api/v1/me/profile", token: olena.token)
            #expect(NSDictionary(dictionary: again.json).isEqual(to: saved.json))
            #expect(try await server.send(.get, "/api/v1/me", token: olena.token).string("displayName") == "Olena K.")

            let taras = try await server.signedInUser()
            let seen = try await server.send(.get, "/api/v1/users/\(olena.id)", token: taras.token)
            #expect(seen.status == 200)
            #expect(seen.string("displayName") == "Olena K." && seen.string("city") == "Lviv")
            #expect(seen.json["birthDate"] == nil && (seen.json["age"] as? Int ?? 0) >= 35)

            let unknown = try await server.send(
                .put, "/api/v1/me/profile", json: ["displayName": "Olena", "activityIds": ["no-such-activity"]], token: olena.token)
            #expect(unknown.status == 422, "\(unknown.text)")
            let problem = (unknown.json["errors"] as? [[String: Any]])?.first
            #expect(problem?["field"] as? String == "activityIds.0" && problem?["code"] as? String == "activity.unknown")

            let missing = try await server.send(.get, "/api/v1/users/no-such-user", token: taras.token)
            #expect(missing.status == 404 && missing.string("code") == "user.notFound")
            #expect(try await server.send(.get, "/api/v1/me/profile").status == 401)
        }
    }

    @Test(arguments: [
        (1, "1 поле профілю потребує виправлення.", "1 field in the profile needs fixing."),
        (2, "2 поля профілю потребують виправлення.", "2 fields in the profile need fixing."),
        (5, "5 полів профілю потребують виправлення.", "5 fields in the profile need fixing."),
    ])
    func invalidProfilesAreExplainedWithPluralForms(invalid: Int, ukrainian: String, english: String) async throws {
        try await TestServer.run { server in
            let user = try await server.signedInUser()
            // Five independent mistakes; the first `invalid` of them are made.
            var body: [String: any Sendable] = ["displayName": "Valid"]
            let mistakes: [(String, any Sendable)] = [
                ("bio", String(repeating: "b", count: 501)), ("birthDate", "2001-02-30"), ("photoId", "../x"),
                ("languages", ["not a language"]), ("displayName", " "),
            ]
            for (field, value) in mistakes.prefix(invalid) { body[field] = value }

            let inUkrainian = try await server.send(.put, "/api/v1/me/profile", json: body, token: user.token, headers: Self.ukrainian)
            #expect(inUkrainian.status == 422)
            #expect(inUkrainian.headers[.contentType] == "application/problem+json")
            #expect(inUkrainian.string("code") == "profile.invalid")
            #expect(inUkrainian.string("detail") == ukrainian)
            #expect(inUkrainian.string("title") == "У профілі є неправильні поля")
            #expect((inUkrainian.json["errors"] as? [Any])?.count == invalid)

            let inEnglish = try await server.send(.put, "/api/v1/me/profile", json: body, token: user.token)
            #expect(inEnglish.string("detail") == english)
            #expect(try await server.send(.get, "/api/v1/me/profile", token: user.token).string("displayName") == "Olena",
                    "a refused update changes nothing")
        }
    }

    @Test func nearbyFindsOnlyVisibleSharersAndNeverTheCaller() async throws {
        try await TestServer.run { server in
            let viewer = try await server.signedInUser()
            let near = try await server.signedInUser()
            let hidden = try await server.signedInUser()
            let far = try await server.signedInUser()
            func put(_ user: SignedInUser, _ lat: Double, _ lon: Double, share: Bool?) async throws {
                var body: [String: any Sendable] = ["lat": lat, "lon": lon]
                if let share { body["share"] = share }
                let reply = try await server.send(.put, "/api/v1/me/location", json: body, token: user.token)
                #expect(reply.status == 200, "\(reply.text)")
            }
            try await put(viewer, 50.4501, 30.5234, share: true)
            try await put(near, 50.4547, 30.5238, share: true)
            try await put(hidden, 50.4502, 30.5235, share: false)
            try await put(far, 49.8397, 24.0297, share: true)   // Lviv

            let found = try await server.send(.get, "/api/v1/users/nearby?lat=50.4501&lon=30.5234&radiusKm=5", token: viewer.token)
            #expect(found.status == 200, "\(found.text)")
            let items = try #require(found.json["items"] as? [[String: Any]])
            #expect(items.compactMap { ($0["user"] as? [String: Any])?["id"] as? String } == [near.id])
            #expect(items.first?["distanceKm"] as? Double == 1, "distances come in whole-kilometre buckets")
            #expect(!found.text.contains("30.5238"), "positions of others are never handed out")

            let blocked = try await server.send(.post, "/api/v1/blocks", json: ["userId": viewer.id], token: near.token)
            #expect((200..<300).contains(blocked.status), "\(blocked.text)")
            let afterBlocking = try await server.send(.get, "/api/v1/users/nearby?lat=50.4501&lon=30.5234&radiusKm=5", token: viewer.token)
            #expect((afterBlocking.json["items"] as? [Any])?.isEmpty == true, "blocked users are hidden from the one they blocked")
            #expect(try await server.send(.get, "/api/v1/users/\(near.id)", token: viewer.token).status == 404)
            _ = try await server.send(.delete, "/api/v1/blocks/\(viewer.id)", token: near.token)

            try await put(near, 50.4547, 30.5238, share: false)
            let afterHiding = try await server.send(.get, "/api/v1/users/nearby?lat=50.4501&lon=30.5234&radiusKm=5", token: viewer.token)
            #expect((afterHiding.json["items"] as? [Any])?.isEmpty == true)

            let bad = try await server.send(.get, "/api/v1/users/nearby?lat=abc&radiusKm=9000", token: viewer.token)
            #expect(bad.status == 422 && bad.string("code") == "request.invalidFields")
            let fields = (bad.json["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(fields == ["lat", "lon"])
            let badPosition = try await server.send(.put, "/api/v1/me/location", json: ["lat": 95, "lon": 0], token: viewer.token)
            #expect(badPosition.status == 422 && badPosition.string("code") == "location.invalid")
            #expect(try await server.send(.get, "/api/v1/users/nearby?lat=0&lon=0").status == 401)
        }
    }

    @Test func peopleSearchPagesThroughNamesWithACursor() async throws {
        try await TestServer.run { server in
            let viewer = try await server.signedInUser()
            for name in ["Ірина Бондар", "Iryna Melnyk", "Ivan Shevchuk", "Irena Novak"] {
                let email = "\(UUID().uuidString.prefix(8).lowercased())@example.org"
                _ = try await server.registerConfirmed(email, displayName: name)
            }
            var names: [String] = []
            var cursor: String?
            repeat {
                let query = "/api/v1/users?q=ir&limit=1" + (cursor.map { "&cursor=" + $0 } ?? "")
                let page = try await server.send(.get, query, token: viewer.token)
                #expect(page.status == 200, "\(page.text)")
                names += (page.json["items"] as? [[String: Any]] ?? []).compactMap { $0["displayName"] as? String }
                cursor = page.string("nextCursor")
            } while cursor != nil
            #expect(names == ["Irena Novak", "Iryna Melnyk"])
            let cyrillic = try await server.send(.get, "/api/v1/users?q=%D1%96%D1%80", token: viewer.token)   // "ір"
            #expect((cyrillic.json["items"] as? [[String: Any]])?.compactMap { $0["displayName"] as? String } == ["Ірина Бондар"])
            #expect(try await server.send(.get, "/api/v1/users?cursor=garbage", token: viewer.token).status == 422)
        }
    }
}

/// Activity suggestions in both languages, and proposals.
@Suite struct ActivityEndToEndTests {
    func firstName(_ server: TestServer, _ query: String, language: String? = nil) async throws -> String? {
        let headers: HTTPFields = language.map { [.acceptLanguage: $0] } ?? [:]
        let user = try await server.signedInUser()
        let reply = try await server.send(.get, "/api/v1/activities?q=\(query)&limit=3", token: user.token, headers: headers)
        #expect(reply.status == 200, "\(reply.text)")
        return (reply.json["items"] as? [[String: Any]])?.first?["name"] as? String
    }

    @Test func suggestionsMatchPrefixesAndTyposInEitherLanguage() async throws {
        try await TestServer.run { server in
            #expect(try await firstName(server, "hik") == "Hiking")
            #expect(try await firstName(server, "hikng") == "Hiking")
            #expect(try await firstName(server, "hik", language: "uk") == "Похід")
            #expect(try await firstName(server, "%D0%BF%D0%BE%D1%85", language: "uk") == "Похід")   // "пох"
            #expect(try await firstName(server, "%D0%BF%D0%BE%D1%85") == "Hiking")
            let tooMany = try await server.send(.get, "/api/v1/activities?limit=1000", token: try await server.signedInUser().token)
            #expect(tooMany.status == 422 && tooMany.string("code") == "request.invalidFields")
        }
    }

    @Test func proposalsAreDeduplicatedAgainstBothLanguages() async throws {
        try await TestServer.run { server in
            let user = try await server.signedInUser()
            let created = try await server.send(.post, "/api/v1/activities", json: ["name": " underwater  hockey"], token: user.token)
            #expect(created.status == 201, "\(created.text)")
            #expect(created.string("name") == "Underwater hockey")
            let again = try await server.send(.post, "/api/v1/activities", json: ["name": "Underwater hokey"], token: user.token)
            #expect(again.status == 200 && again.string("id") == created.string("id"))
            let ukrainian = try await server.send(.post, "/api/v1/activities", json: ["name": "похід"], token: user.token)
            #expect(ukrainian.status == 200 && ukrainian.string("id") == "hiking")

            let bad = try await server.send(.post, "/api/v1/activities", json: ["name": "<b>"], token: user.token,
                                            headers: [.acceptLanguage: "uk"])
            #expect(bad.status == 422 && bad.string("code") == "activity.invalid")
            #expect(bad.string("detail")?.hasPrefix("Назва заняття має містити від 2 до 40 символів") == true)
            #expect(try await server.send(.post, "/api/v1/activities", json: ["name": "Chess boxing"]).status == 401)
        }
    }
}
