import Foundation
import Testing
@testable import MeetCore

@Suite struct MeetingServiceTests {
    @Test func createGeocodesThePlaceAndMakesTheOrganizerAMember() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob")
        var draft = MeetingFixture.draft(place: PlaceInput(query: "Kyiv"), capacity: 5, activityIds: ["hiking", "running"], inviteeIds: ["bob"])
        draft.price = Price(amount: Decimal(string: "12.50")!, currency: "uah")
        let meeting = try await f.service.create(draft, by: "ann")
        #expect(meeting.place == MeetingFixture.kyiv)
        #expect(meeting.memberCount == 1)
        #expect(meeting.price == Price(amount: Decimal(string: "12.5")!, currency: "UAH"))
        #expect(meeting.activityIds == ["hiking", "running"])
        #expect(try await f.service.members(of: meeting.id, viewer: "ann").map(\.userId) == ["ann"])
        let invited = try f.events(.invitationSent)
        #expect(invited.map(\.recipients) == [["bob"]])
        let read = try await f.service.meeting(meeting.id, viewer: "bob")
        #expect(read == meeting)
    }

    @Test func everyInvalidFieldIsReported() async throws {
        let f = try MeetingFixture()
        try f.users("ann")
        var draft = MeetingFixture.draft(title: "  ", visibility: "secret", in: -1, place: PlaceInput(query: "Nowhere"), capacity: 0)
        draft.endsAt = MeetingFixture.time(hours: -2)
        draft.price = Price(amount: -3, currency: "EUR")
        draft.inviteeIds = (0...100).map { "u\($0)" }
        let problems = await fieldProblems { _ = try await f.service.create(draft, by: "ann") }
        #expect(Set(problems) == [
            "title:field.required", "visibility:field.invalid", "startsAt:meeting.startInPast", "endsAt:meeting.endBeforeStart", "place:place.notFound",
            "maxParticipants:field.outOfRange", "price.amount:price.negative", "inviteeIds:field.tooMany",
        ])
    }

    @Test func priceCurrencyAndPrecisionAreChecked() async throws {
        let f = try MeetingFixture()
        try f.users("ann")
        for (price, problem) in [
            (Price(amount: 5, currency: "XYZ"), "price.currency:price.unknownCurrency"),
            (Price(amount: Decimal(string: "1.5")!, currency: "JPY"), "price.amount:price.tooPrecise"),
        ] {
            let problems = await fieldProblems { _ = try await f.service.create(MeetingFixture.draft(price: price), by: "ann") }
            #expect(problems == [problem])
        }
        let free = try await f.service.create(MeetingFixture.draft(price: Price(amount: 0, currency: "EUR")), by: "ann")
        #expect(free.price == nil)
    }

    @Test func unknownInviteesAreRefused() async throws {
        let f = try MeetingFixture()
        try f.users("ann")
        let problems = await fieldProblems { _ = try await f.service.create(MeetingFixture.draft(inviteeIds: ["ghost"]), by: "ann") }
        #expect(problems == ["inviteeIds:user.unknown"])
    }

    @Test func onlyTheOrganizerEditsAndMembersHearWhatChanged() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob")
        let meeting = try await f.service.create(MeetingFixture.draft(capacity: 5), by: "ann")
        _ = try await f.service.join(meeting.id, by: "bob")
        var changes = MeetingChanges()
        changes.title = "Morning run"
        #expect(await errorCode { _ = try await f.service.update(meeting.id, with: changes, by: "bob") } == "meeting.notOrganizer")
        changes.maxParticipants = .set(1)
        #expect(await fieldProblems { _ = try await f.service.update(meeting.id, with: changes, by: "ann") } == ["maxParticipants:meeting.capacityBelowMembers"])
        changes.maxParticipants = .set(nil)
        changes.endsAt = .set(MeetingFixture.time(hours: 26))
        let edited = try await f.service.update(meeting.id, with: changes, by: "ann")
        #expect(edited.title == "Morning run" && edited.maxParticipants == nil && edited.revision == 1)
        let events = try f.events(.meetingEdited)
        #expect(events.map(\.changedFields) == [["endsAt", "maxParticipants", "title"]])
        #expect(events.map(\.recipients) == [["bob"]])
    }

    @Test func cancelledMeetingsStayReadableAndMembersAreTold() async throws {
        let f = try MeetingFixture()
        try f.users("ann", "bob", "cy")
        let meeting = try await f.service.create(MeetingFixture.draft(inviteeIds: ["cy"]), by: "ann")
        _ = try await f.service.join(meeting.id, by: "bob")
        #expect(await errorCode { _ = try await f.service.cancel(meeting.id, by: "bob") } == "meeting.notOrganizer")
        _ = try await f.service.cancel(meeting.id, by: "ann")
        #expect(try await f.service.meeting(meeting.id, viewer: "bob").status == .cancelled)
        #expect(try f.events(.meetingCancelled).map { Set($0.recipients) } == [["bob", "cy"]])
        #expect(await errorCode { _ = try await f.service.join(meeting.id, by: "cy") } == "meeting.cancelled")
        #expect(await errorCode { _ = try await f.service.cancel(meeting.id, by: "ann") } == "meeting.cancelled")
    }
}
