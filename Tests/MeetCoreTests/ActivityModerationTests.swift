import Foundation
import GRDB
import Testing
@testable import MeetCore

/// Moderators' care of the activity catalog: merging two activities moves every use once and
/// loses nothing, hiding keeps old uses but refuses new ones, renaming keeps names distinct.
@Suite struct ActivityModerationTests {
    let f: MeetingFixture
    let moderator = Moderator.terminal(login: "tester")

    init() throws {
        f = try MeetingFixture()
        try f.users("ann", "bob", "cat")
    }

    var moderation: ModerationService { ModerationService(database: f.database, now: { MeetingFixture.now }) }
    var activities: ActivityService { ActivityService(database: f.database, now: { MeetingFixture.now }) }
    var profiles: ProfileService { ProfileService(database: f.database, now: { MeetingFixture.now }) }

    func setProfile(_ user: String, _ activityIds: [String]) async throws {
        _ = try await profiles.update(try Profile(validating: user, displayName: user, activityIds: activityIds, today: MeetingFixture.now))
    }

    func profileActivities(_ user: String) async throws -> [String] {
        try await profiles.profile(of: user).activityIds.sorted()
    }

    func meetingActivities(_ id: String) async throws -> [String] {
        try await f.service.meeting(id, viewer: "ann").activityIds
    }

    @Test func aMergeMovesEveryUseOnceAndTheSourceLeaves() async throws {
        let (jogging, _) = try await activities.propose(name: "Jogging together", language: "en", by: "bob")
        try await setProfile("ann", [jogging.id, "running"])  // has both: keeps "running" once
        try await setProfile("bob", [jogging.id, "hiking"])
        try await setProfile("cat", ["hiking"])
        let both = try await f.service.create(MeetingFixture.draft(activityIds: [jogging.id, "running"]), by: "ann")
        let onlySource = try await f.service.create(MeetingFixture.draft(activityIds: [jogging.id]), by: "bob")

        let moved = try await f.database.writer.write { db in try ActivityMerge.merge(jogging.id, into: "running", in: db) }
        #expect(moved == ActivityMerge.Moved(profiles: 1, meetings: 1, duplicates: 2))

        #expect(try await profileActivities("ann") == ["running"])
        #expect(try await profileActivities("bob") == ["hiking", "running"])
        #expect(try await profileActivities("cat") == ["hiking"])
        #expect(try await meetingActivities(both.id) == ["running"])
        #expect(try await meetingActivities(onlySource.id) == ["running"])
        let left = try await f.database.reader.read { db in
            try ActivityService.usageTables.map { try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0) WHERE activityId = ?", arguments: [jogging.id]) }
        }
        #expect(left == [0, 0], "no use of the source is left in any usage table")
        let running = try await moderation.activities(search: "Running", limit: 10).first { $0.id == "running" }
        #expect(running?.profiles == 2 && running?.meetings == 2)
        #expect(await errorCode { _ = try await moderation.mergeActivity(jogging.id, into: "running", reason: nil, by: moderator) }
            == "activity.notFound")
    }

    @Test func aMergeFillsTheTargetsMissingLanguageAndIsAudited() async throws {
        let (english, _) = try await activities.propose(name: "Nordic walking poles", language: "en", by: "ann")
        let (ukrainian, _) = try await activities.propose(name: "Скандинавські палиці", language: "uk", by: "bob")
        try await setProfile("bob", [ukrainian.id])

        let target = try await moderation.mergeActivity(ukrainian.id, into: english.id, reason: "same thing", by: moderator)
        #expect(target.nameEn == "Nordic walking poles" && target.nameUk == "Скандинавські палиці" && target.profiles == 1)
        let audit = try await moderation.audit(targetId: ukrainian.id)
        #expect(audit.map(\.action) == ["activity.merge"] && audit.first?.reason == "same thing" && audit.first?.actor == "cli:tester")
        #expect(audit.first?.detail?.contains("into \(english.id)") == true)
    }

    @Test func aRefusedMergeChangesNothing() async throws {
        try await setProfile("ann", ["hiking"])
        #expect(await errorCode { _ = try await moderation.mergeActivity("hiking", into: "hiking", reason: nil, by: moderator) }
            == "moderation.noChange")
        #expect(await errorCode { _ = try await moderation.mergeActivity("hiking", into: "no-such", reason: nil, by: moderator) }
            == "activity.notFound")
        #expect(await errorCode { _ = try await moderation.mergeActivity("no-such", into: "hiking", reason: nil, by: moderator) }
            == "activity.notFound")
        #expect(try await profileActivities("ann") == ["hiking"])
        #expect(try await moderation.audit().isEmpty)
    }

    @Test func aHiddenActivityKeepsItsUsesButTakesNoNewOnes() async throws {
        try await setProfile("ann", ["hiking"])
        let meeting = try await f.service.create(MeetingFixture.draft(activityIds: ["hiking"]), by: "ann")
        let hidden = try await moderation.setActivityHidden("hiking", true, reason: "test", by: moderator)
        #expect(hidden.hidden && hidden.profiles == 1 && hidden.meetings == 1)

        #expect(try await activities.suggestions(matching: "hik", language: "en", limit: 10).allSatisfy { $0.id != "hiking" })
        try await setProfile("ann", ["hiking", "running"])  // an existing use stays
        #expect(try await profileActivities("ann") == ["hiking", "running"])
        #expect(await fieldProblems { try await setProfile("bob", ["running", "hiking"]) } == ["activityIds.1:activity.unknown"])
        #expect(await fieldProblems { _ = try await f.service.create(MeetingFixture.draft(activityIds: ["hiking"]), by: "bob") }
            == ["activityIds:activity.unknown"])
        var changes = MeetingChanges()
        changes.activityIds = ["hiking", "running"]
        _ = try await f.service.update(meeting.id, with: changes, by: "ann")
        #expect(try await meetingActivities(meeting.id) == ["hiking", "running"])
        #expect(await errorCode { _ = try await activities.propose(name: "Hikking", language: "en", by: "bob") } == "activity.hidden")
        #expect(await errorCode { _ = try await moderation.setActivityHidden("hiking", true, reason: "again", by: moderator) }
            == "moderation.noChange")

        _ = try await moderation.setActivityHidden("hiking", false, reason: nil, by: moderator)
        #expect(try await activities.suggestions(matching: "hik", language: "en", limit: 10).first?.id == "hiking")
        try await setProfile("bob", ["hiking"])
    }

    @Test func aProposalMatchingAHiddenAndAnOfferedActivityGetsTheOfferedOne() async throws {
        // Near-twins can both exist (seeded, or older than the duplicate check); the hidden one
        // comes first in the table.
        try await f.database.writer.write { db in
            for (id, name) in [("slackline", "Slackline"), ("slacklines", "Slacklines")] {
                try Activity(id: id, nameEn: name, nameUk: nil, proposedBy: nil, createdAt: MeetingFixture.now).insert(db)
            }
        }
        _ = try await moderation.setActivityHidden("slackline", true, reason: "twin", by: moderator)
        let (found, created) = try await activities.propose(name: "Slacklinez", language: "en", by: "ann")
        #expect(!created && found.id == "slacklines")
        _ = try await moderation.setActivityHidden("slacklines", true, reason: "both", by: moderator)
        #expect(await errorCode { _ = try await activities.propose(name: "Slacklinez", language: "en", by: "ann") } == "activity.hidden")
    }

    @Test func aRenameKeepsNamesDistinct() async throws {
        let (proposed, _) = try await activities.propose(name: "Slaklining", language: "en", by: "ann")
        let renamed = try await moderation.renameActivity(proposed.id, english: " slacklining  in parks", ukrainian: "слеклайн", reason: nil, by: moderator)
        #expect(renamed.nameEn == "Slacklining in parks" && renamed.nameUk == "Слеклайн")
        #expect(await errorCode { _ = try await moderation.renameActivity(proposed.id, english: "Hikking", ukrainian: nil, reason: nil, by: moderator) }
            == "activity.nameTaken")
        #expect(await errorCode { _ = try await moderation.renameActivity(proposed.id, english: "Slacklining in parks", ukrainian: nil, reason: nil, by: moderator) }
            == "moderation.noChange")
        #expect(await errorCode { _ = try await moderation.renameActivity(proposed.id, english: "!!", ukrainian: nil, reason: nil, by: moderator) }
            == "activity.invalid")
        #expect(try await moderation.audit(targetId: proposed.id).map(\.detail) == ["Slaklining / - → Slacklining in parks / Слеклайн"])
    }
}
