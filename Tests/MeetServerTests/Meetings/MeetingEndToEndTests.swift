import Foundation
import Hummingbird
import Testing

/// Meetings over HTTP against the real server; the Python interop tests cover more cases.
@Suite struct MeetingEndToEndTests {
    static func time(hours: Double) -> String { (Date() + hours * 3600).formatted(.iso8601) }

    static func draft(_ fields: [String: any Sendable] = [:]) -> [String: any Sendable] {
        var draft: [String: any Sendable] = [
            "title": "Evening run", "visibility": "public", "startsAt": time(hours: 24),
            "place": ["lat": 50.4501, "lon": 30.5234] as [String: any Sendable],
        ]
        draft.merge(fields) { $1 }
        return draft
    }

    @Test func createJoinFindAndExportAMeeting() async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let created = try await server.send(.post, "/api/v1/meetings", json: Self.draft(["maxParticipants": 2]), token: ann.token)
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(created.string("id"))
            #expect((created.json["place"] as? [String: Any])?["timeZone"] as? String == "Europe/Kyiv")

            let joined = try await server.send(.post, "/api/v1/meetings/\(id)/join", token: bob.token)
            #expect(joined.status == 200 && joined.json["memberCount"] as? Int == 2)

            let feed = try await server.send(.get, "/api/v1/meetings?lat=50.45&lon=30.52&radiusKm=5&sort=relevance", token: bob.token)
            let items = feed.json["items"] as? [[String: Any]] ?? []
            #expect(items.map { $0["id"] as? String } == [id])
            #expect((items.first?["distanceKm"] as? Double ?? 99) < 1)

            let ics = try await server.send(.get, "/api/v1/meetings/\(id)/calendar.ics", token: bob.token)
            #expect(ics.status == 200 && ics.headers[.contentType]?.hasPrefix("text/calendar") == true)
            #expect(ics.text.contains("DTSTART;TZID=Europe/Kyiv:") && ics.text.contains("UID:\(id)@meetupd"))
        }
    }

    @Test func membersCarryNamesAndPhotosAndHideBlockedUsers() async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let cy = try await server.signedInUser()
            let photo = try await server.uploadPhoto(token: bob.token)
            let profile = try await server.send(.put, "/api/v1/me/profile", json: ["displayName": "Bob", "photoId": photo], token: bob.token)
            #expect(profile.status == 200, "\(profile.text)")
            let created = try await server.send(.post, "/api/v1/meetings", json: Self.draft(), token: ann.token)
            let meeting = "/api/v1/meetings/" + (try #require(created.string("id")))
            for user in [bob, cy] {
                #expect(try await server.send(.post, meeting + "/join", token: user.token).status == 200)
            }
            func members(seenBy user: SignedInUser) async throws -> [[String: Any]] {
                let reply = try await server.send(.get, meeting + "/members", token: user.token)
                #expect(reply.status == 200, "\(reply.text)")
                return reply.json["items"] as? [[String: Any]] ?? []
            }

            let all = try await members(seenBy: ann)
            #expect(all.map { $0["userId"] as? String } == [ann.id, bob.id, cy.id])
            #expect(all.map { $0["displayName"] as? String } == ["Olena", "Bob", "Olena"])
            #expect(all.map { $0["photoId"] as? String } == [nil, photo, nil])
            #expect(all.map { $0["role"] as? String } == ["organizer", "member", "member"])
            #expect(all.allSatisfy { ($0["joinedAt"] as? String)?.hasSuffix("Z") == true })

            // A block hides each from the other, and from no one else.
            #expect(try await server.send(.post, "/api/v1/blocks", json: ["userId": bob.id], token: cy.token).status == 204)
            #expect(try await members(seenBy: cy).map { $0["userId"] as? String } == [ann.id, cy.id])
            #expect(try await members(seenBy: bob).map { $0["userId"] as? String } == [ann.id, bob.id])
            #expect(try await members(seenBy: ann).count == 3)
        }
    }

    @Test func aPrivateMeetingIsNotFoundForAStrangerOnEveryPath() async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            let eve = try await server.signedInUser()
            let created = try await server.send(.post, "/api/v1/meetings", json: Self.draft(["visibility": "private"]), token: ann.token)
            let path = "/api/v1/meetings/" + (try #require(created.string("id")))
            let unknown = try await server.send(.get, "/api/v1/meetings/unknown", token: eve.token)
            let requests: [(HTTPRequest.Method, String, [String: any Sendable]?)] = [
                (.get, path, nil), (.patch, path, ["title": "x"]), (.delete, path, nil), (.post, path + "/join", nil),
                (.post, path + "/leave", nil), (.get, path + "/members", nil), (.delete, path + "/members/\(ann.id)", nil),
                (.post, path + "/invitations", ["userIds": [ann.id]]), (.get, path + "/calendar.ics", nil),
            ]
            for (method, url, body) in requests {
                let reply = try await server.send(method, url, json: body, token: eve.token)
                #expect(reply.status == 404, "\(method) \(url)")
                #expect(reply.string("code") == "meeting.notFound" && reply.string("title") == unknown.string("title"), "\(method) \(url)")
            }
        }
    }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A hundred clients, each on its own connection, join a ten-place meeting at once.
@Suite struct MeetingCapacityTests {
    @Test func aHundredSimultaneousJoinsFillExactlyTenPlaces() async throws {
        try await TestServer.run { server in
            let organizer = try await server.signedInUser()
            var joiners: [SignedInUser] = []
            for _ in 0..<100 { joiners.append(try await server.signedInUser()) }
            let created = try await server.send(
                .post, "/api/v1/meetings", json: MeetingEndToEndTests.draft(["maxParticipants": 10]), token: organizer.token)
            let id = try #require(created.string("id"))
            let port = try #require(server.client.port)

            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = joiners.count
            let session = URLSession(configuration: configuration)
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/api/v1/meetings/\(id)/join"))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for joiner in joiners {
                    group.addTask {
                        var request = URLRequest(url: url)
                        request.httpMethod = "POST"
                        request.setValue("Bearer " + joiner.token, forHTTPHeaderField: "Authorization")
                        let (_, response) = try await session.data(for: request)
                        return (response as? HTTPURLResponse)?.statusCode ?? 0
                    }
                }
                return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(statuses == [200: 9, 409: 91])
            let members = try await server.send(.get, "/api/v1/meetings/\(id)/members", token: organizer.token)
            #expect((members.json["items"] as? [Any])?.count == 10)
        }
    }
}

/// A meeting's photo is a media id, never a path or a URL (issue 20, "integrity").
@Suite struct MeetingPhotoReferenceTests {
    @Test func aPhotoIdThatIsNoIdIsRefusedOnCreateAndEdit() async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            for bad in ["../../../../etc/passwd", "", "a b", String(repeating: "x", count: 65), "фото"] {
                let created = try await server.send(.post, "/api/v1/meetings", json: MeetingEndToEndTests.draft(["photoId": bad]), token: ann.token)
                #expect(created.status == 422 && created.text.contains("photoId"), "\(bad): \(created.text)")
            }
            let photo = try await server.uploadPhoto(token: ann.token)
            let created = try await server.send(.post, "/api/v1/meetings", json: MeetingEndToEndTests.draft(["photoId": photo]), token: ann.token)
            #expect(created.status == 201, "\(created.text)")
            let meeting = "/api/v1/meetings/" + (try #require(created.string("id")))
            let patched = try await server.send(.patch, meeting, json: ["photoId": "../secret"], token: ann.token)
            #expect(patched.status == 422 && patched.text.contains("photoId"), "\(patched.text)")
            #expect(try await server.send(.get, meeting, token: ann.token).string("photoId") == photo)
        }
    }
}

/// Times and numbers are read strictly (issue 20, "integrity"): a date that does not exist is
/// refused rather than rolled over, and a number too large for its field names the field.
@Suite struct StrictFieldTests {
    @Test(arguments: ["2027-02-30T10:00:00Z", "2027-13-01T10:00:00Z", "2027-04-31T10:00:00+02:00", "2027-03-01T24:00:00Z",
                      "2027-03-01T10:00:00", "2027-03-01 10:00:00Z", "2027-03-01T10:00:00Zjunk"])
    func anImpossibleStartIsRefused(startsAt: String) async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            let created = try await server.send(.post, "/api/v1/meetings", json: MeetingEndToEndTests.draft(["startsAt": startsAt]), token: ann.token)
            #expect(created.status == 422 && created.text.contains("startsAt"), "\(startsAt): \(created.text)")
            let feed = try await server.send(.get, "/api/v1/meetings?lat=50.45&lon=30.52&radiusKm=5&from=\(startsAt.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: " ", with: "%20"))", token: ann.token)
            #expect(feed.status == 422 && feed.text.contains("from"), "\(startsAt): \(feed.text)")
        }
    }

    @Test func aLeapDayAndAnOffsetAreRead() async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            let created = try await server.send(
                .post, "/api/v1/meetings", json: MeetingEndToEndTests.draft(["startsAt": "2028-02-29T20:30:00.5+02:00"]), token: ann.token)
            #expect(created.status == 201, "\(created.text)")
            #expect(created.string("startsAt") == "2028-02-29T18:30:00Z", "\(created.text)")
        }
    }

    @Test(arguments: ["99999999999999999999", "1e30", "-99999999999999999999"])
    func aNumberTooLargeForItsFieldNamesTheField(number: String) async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            let body = "{\"title\":\"Run\",\"visibility\":\"public\",\"startsAt\":\"\(MeetingEndToEndTests.time(hours: 24))\","
                + "\"place\":{\"lat\":50.45,\"lon\":30.52},\"maxParticipants\":\(number)}"
            let created = try await server.send(.post, "/api/v1/meetings", raw: body, token: ann.token)
            #expect(created.status == 422 && created.string("code") == "request.invalidFields", "\(number): \(created.text)")
            #expect(created.text.contains("maxParticipants"), "\(created.text)")
        }
    }
}
