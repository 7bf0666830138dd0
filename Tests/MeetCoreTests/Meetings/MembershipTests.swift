import Foundation
import Testing
@testable import MeetCore

@Suite struct MembershipTests {
    @Test func concurrentJoinsNeverOverfillAMeeting() async throws {
        let f = try MeetingFixture()
        let joiners = (0..<100).map { "user\($0)" }
        try f.users(["ann"] + joiners)
        let meeting = try await f.service.create(MeetingFixture.draft(capacity: 10), by: "ann")
        let outcomes = await withTaskGroup(of: String.self) { group in
            for user in joiners {
                group.addTask { await errorCode { _ = try await f.service.join(meeting.id, by: user) } ?? "joined" }
            }
            return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        #expect(outcomes == ["joined": 9, "meeting.full": 91])
        #expect(try await f.service.members(of: meeting.id, viewer: "ann").count == 10)
        #expect(try await f.service.meeting(meeting.id, viewer: "ann").memberCount == 10)
        #expect(try f.events(.meetingJoined).count == 9)
    }

    @Test func leavingAndRemoving() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob", "cy")
        let meeting = try await f.service.create(MeetingFixture.draft(capacity: 2), by: "ann")
        _ = try await f.service.join(meeting.id, by: "bob")
        // Joining twice changes nothing.
        #expect(try await f.service.join(meeting.id, by: "bob").memberCount == 2)
        #expect(await errorCode { _ = try await f.service.join(meeting.id, by: "cy") } == "meeting.full")
        try await f.service.leave(meeting.id, by: "bob")
        #expect(await errorCode { try await f.service.leave(meeting.id, by: "bob") } == "meeting.notMember")
        #expect(await errorCode { try await f.service.leave(meeting.id, by: "ann") } == "meeting.organizerCannotLeave")
        _ = try await f.service.join(meeting.id, by: "cy")
        #expect(await errorCode { try await f.service.removeMember("ann", from: meeting.id, by: "cy") } == "meeting.notOrganizer")
        try await f.service.removeMember("cy", from: meeting.id, by: "ann")
        #expect(await errorCode { try await f.service.removeMember("cy", from: meeting.id, by: "ann") } == "member.notFound")
        #expect(try await f.service.members(of: meeting.id, viewer: "ann").map(\.userId) == ["ann"])
        #expect(try f.events(.meetingMemberRemoved).map(\.recipients) == [["cy"]])
    }

    @Test func membersListHidesBannedAndBlockedUsers() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob", "cy", "dan")
        let meeting = try await f.service.create(MeetingFixture.draft(), by: "ann")
        for user in ["bob", "cy", "dan"] { _ = try await f.service.join(meeting.id, by: user) }
        try await f.database.writer.write { db in
            try db.execute(sql: "UPDATE user SET banned = 1 WHERE id = 'dan'")
            try db.execute(sql: "INSERT INTO block (blockerId, blockedId, createdAt) VALUES ('bob', 'cy', 0)")
        }
        let seenByAnn = try await f.service.members(of: meeting.id, viewer: "ann")
        #expect(seenByAnn.map(\.userId) == ["ann", "bob", "cy"])
        #expect(seenByAnn.map(\.displayName) == ["ann", "bob", "cy"])
        #expect(seenByAnn.map(\.role) == [.organizer, .member, .member])
        #expect(try await f.service.members(of: meeting.id, viewer: "cy").map(\.userId) == ["ann", "cy"])
    }

    @Test func privateMeetingsAreInvisibleToOutsidersOnEveryPath() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob", "eve", "dan", "cy")
        let meeting = try await f.service.create(MeetingFixture.draft(visibility: "private", inviteeIds: ["bob", "dan", "cy"]), by: "ann")
        let id = meeting.id
        let s = f.service
        // Whoever declined or left is an outsider again.
        _ = try await s.answerInvitation(try await s.invitations(for: "dan")[0].id, accept: false, by: "dan")
        _ = try await s.join(id, by: "cy")
        try await s.leave(id, by: "cy")
        func paths(_ eve: String) -> [(String, () async throws -> Void)] { [
            ("read", { _ = try await s.meeting(id, viewer: eve) }),
            ("members", { _ = try await s.members(of: id, viewer: eve) }),
            ("join", { _ = try await s.join(id, by: eve) }),
            ("leave", { try await s.leave(id, by: eve) }),
            ("invite", { _ = try await s.invite(["bob"], to: id, by: eve) }),
            ("edit", { _ = try await s.update(id, with: MeetingChanges(), by: eve) }),
            ("cancel", { _ = try await s.cancel(id, by: eve) }),
            ("remove", { try await s.removeMember("ann", from: id, by: eve) }),
            ("calendar", { _ = try await s.calendar(for: id, viewer: eve, link: { $0 }) }),
            ("access", { _ = try await f.database.reader.read { db in try MeetingAccess.role(of: eve, inMeeting: id, in: db) } }),
        ] }
        for outsider in ["eve", "dan", "cy"] {
            for (name, path) in paths(outsider) {
                #expect(await errorCode(path) == "meeting.notFound", "\(outsider) \(name)")
            }
        }
        // The invitee sees it and may join.
        #expect(try await s.meeting(id, viewer: "bob").visibility == .private)
        #expect(try await s.join(id, by: "bob").memberCount == 2)
        // Asked again, the one who declined sees it again.
        _ = try await s.invite(["dan"], to: id, by: "ann")
        #expect(try await s.meeting(id, viewer: "dan").id == id)
        #expect(try await s.invitations(for: "bob").isEmpty)
    }

    @Test func invitationsAreSentListedAcceptedAndDeclined() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob", "cy", "dan")
        let meeting = try await f.service.create(MeetingFixture.draft(visibility: "private", capacity: 2), by: "ann")
        let sent = try await f.service.invite(["bob", "cy", "bob"], to: meeting.id, by: "ann")
        #expect(Set(sent.map(\.inviteeId)) == ["bob", "cy"])
        let mine = try await f.service.invitations(for: "bob")
        #expect(mine.map(\.meeting?.id) == [meeting.id])
        // A member may not invite unless the organizer allows it.
        _ = try await f.service.answerInvitation(mine[0].id, accept: true, by: "bob")
        #expect(await errorCode { _ = try await f.service.invite(["dan"], to: meeting.id, by: "bob") } == "meeting.mayNotInvite")
        var changes = MeetingChanges()
        changes.membersMayInvite = true
        _ = try await f.service.update(meeting.id, with: changes, by: "ann")
        #expect(try await f.service.invite(["dan"], to: meeting.id, by: "bob").count == 1)

        let cyInvitation = try await f.service.invitations(for: "cy")[0]
        #expect(await errorCode { _ = try await f.service.answerInvitation(cyInvitation.id, accept: true, by: "dan") } == "invitation.notFound")
        // Two places, both taken: accepting finds the meeting full and changes nothing.
        #expect(await errorCode { _ = try await f.service.answerInvitation(cyInvitation.id, accept: true, by: "cy") } == "meeting.full")
        let declined = try await f.service.answerInvitation(cyInvitation.id, accept: false, by: "cy")
        #expect(declined.status == .declined)
        #expect(await errorCode { _ = try await f.service.answerInvitation(cyInvitation.id, accept: true, by: "cy") } == "invitation.answered")
        #expect(try f.events(.invitationDeclined).map(\.recipients) == [["ann"]])
    }
}
