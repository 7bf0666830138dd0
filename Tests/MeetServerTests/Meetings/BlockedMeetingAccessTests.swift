import Foundation
import Testing

/// A block reaches through meetings: invitations and memberships between the two end, and the
/// feed hides the other's meetings on every page (issue 20, "privacy and access").
@Suite struct BlockedMeetingAccessTests {
    static func draft(_ fields: [String: any Sendable] = [:]) -> [String: any Sendable] { MeetingEndToEndTests.draft(fields) }

    @Test(arguments: [true, false])
    func aBlockEndsAPendingInvitationToAPrivateMeeting(organizerBlocks: Bool) async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let created = try await server.send(
                .post, "/api/v1/meetings", json: Self.draft(["visibility": "private", "inviteeIds": [bob.id]]), token: ann.token)
            let meeting = "/api/v1/meetings/" + (try #require(created.string("id")))
            let invitations = try await server.send(.get, "/api/v1/me/invitations", token: bob.token)
            let invitation = try #require((invitations.json["items"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await server.send(.get, meeting, token: bob.token).status == 200)

            let (blocker, blocked) = organizerBlocks ? (ann, bob) : (bob, ann)
            #expect(try await server.send(.post, "/api/v1/blocks", json: ["userId": blocked.id], token: blocker.token).status == 204)

            for path in [meeting, meeting + "/members"] {
                let reply = try await server.send(.get, path, token: bob.token)
                #expect(reply.status == 404 && reply.string("code") == "meeting.notFound", "\(path): \(reply.text)")
            }
            let after = try await server.send(.get, "/api/v1/me/invitations", token: bob.token)
            #expect((after.json["items"] as? [[String: Any]])?.isEmpty == true, "\(after.text)")
            let accepted = try await server.send(.post, "/api/v1/invitations/\(invitation)/accept", token: bob.token)
            #expect(accepted.status == 404, "\(accepted.text)")
            let join = try await server.send(.post, meeting + "/join", token: bob.token)
            #expect(join.status == 404, "\(join.text)")
        }
    }

    @Test func aMemberMayNotInviteSomeoneTheOrganizerBlocked() async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let cy = try await server.signedInUser()
            let created = try await server.send(.post, "/api/v1/meetings", json: Self.draft(["membersMayInvite": true]), token: ann.token)
            let meeting = "/api/v1/meetings/" + (try #require(created.string("id")))
            #expect(try await server.send(.post, meeting + "/join", token: bob.token).status == 200)
            #expect(try await server.send(.post, "/api/v1/blocks", json: ["userId": ann.id], token: cy.token).status == 204)

            let invited = try await server.send(.post, meeting + "/invitations", json: ["userIds": [cy.id]], token: bob.token)
            #expect(invited.status == 422, "\(invited.text)")
            #expect(invited.text.contains("user.unknown"), "\(invited.text)")
            let pending = try await server.send(.get, "/api/v1/me/invitations", token: cy.token)
            #expect((pending.json["items"] as? [[String: Any]])?.isEmpty == true, "\(pending.text)")
        }
    }

    @Test(arguments: [true, false])
    func aBlockBetweenMemberAndOrganizerEndsTheMembership(memberBlocks: Bool) async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            let created = try await server.send(.post, "/api/v1/meetings", json: Self.draft(), token: ann.token)
            let meeting = "/api/v1/meetings/" + (try #require(created.string("id")))
            #expect(try await server.send(.post, meeting + "/join", token: bob.token).status == 200)

            let (blocker, blocked) = memberBlocks ? (bob, ann) : (ann, bob)
            #expect(try await server.send(.post, "/api/v1/blocks", json: ["userId": blocked.id], token: blocker.token).status == 204)

            let seen = try await server.send(.get, meeting, token: ann.token)
            #expect(seen.json["memberCount"] as? Int == 1, "\(seen.text)")
            #expect(try await server.send(.get, meeting, token: bob.token).status == 404)
            // Lifting the block does not make bob a member again.
            #expect(try await server.send(.delete, "/api/v1/blocks/\(blocked.id)", token: blocker.token).status == 204)
            let members = try await server.send(.get, meeting + "/members", token: ann.token)
            #expect((members.json["items"] as? [[String: Any]])?.map { $0["userId"] as? String } == [ann.id])
        }
    }

    @Test func laterFeedPagesHideTheMeetingsOfSomeoneBlockedSinceTheFirst() async throws {
        try await TestServer.run { server in
            let ann = try await server.signedInUser()
            let bob = try await server.signedInUser()
            for hours in [24.0, 25, 26, 27] {
                let created = try await server.send(
                    .post, "/api/v1/meetings", json: Self.draft(["startsAt": MeetingEndToEndTests.time(hours: hours)]), token: ann.token)
                #expect(created.status == 201, "\(created.text)")
            }
            let feed = "/api/v1/meetings?lat=50.45&lon=30.52&radiusKm=5&sort=date&limit=2"
            let first = try await server.send(.get, feed, token: bob.token)
            #expect((first.json["items"] as? [[String: Any]])?.count == 2, "\(first.text)")
            let cursor = try #require(first.string("nextCursor"))

            #expect(try await server.send(.post, "/api/v1/blocks", json: ["userId": ann.id], token: bob.token).status == 204)
            let second = try await server.send(.get, feed + "&cursor=\(cursor)", token: bob.token)
            #expect(second.status == 200, "\(second.text)")
            #expect((second.json["items"] as? [[String: Any]])?.isEmpty == true, "\(second.text)")
        }
    }
}
