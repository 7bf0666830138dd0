import Foundation
import Testing
@testable import MeetCore

/// A position's read of its meeting checks that the sender still belongs to it: the
/// authorizer checked before, and a leave may have committed since.
@Suite struct MeetingDestinationTests {
    @Test func onlyMembersStillInTheMeetingGetItsDestination() async throws {
        let fixture = try MeetingFixture()
        let meeting = try await fixture.annsMeetingWithBob(title: "Open")
        try fixture.users("cy")
        for member in ["ann", "bob"] {
            #expect(try await MeetingDestination.read(meeting, for: member, in: fixture.database).cancelled == false)
        }
        try await fixture.service.leave(meeting, by: "bob")
        for outsider in ["bob", "cy"] {
            await #expect(throws: MeetError.notMember) { try await MeetingDestination.read(meeting, for: outsider, in: fixture.database) }
        }
        await #expect(throws: MeetError.meetingNotFound) { try await MeetingDestination.read("nowhere", for: "ann", in: fixture.database) }
    }
}
