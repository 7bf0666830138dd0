import Synchronization

/// A meeting as feed pages show it, without its distance (which depends on the point asked
/// about): read once, then shared by reference between the page cache (`FeedPageMeetings`)
/// and every page that shows it, so that a page copies a pointer rather than the meeting's
/// twenty-odd fields (issue 21: sharing them took a sixth off a date feed request's
/// instructions, callgrind).
package final class PageMeeting: Sendable {
    package let meeting: Meeting
    /// Unique to this reading of the meeting. A meeting changed by a commit is dropped from
    /// the page cache and read anew, under a new version, so whatever is derived from
    /// `meeting` alone may be kept under its version (the server keeps its JSON,
    /// `RenderedMeetings`).
    package let version: UInt64
    /// Public and not cancelled: a meeting cancelled or made private since the first page
    /// drops out of later pages.
    let isListed: Bool
    /// Where it is, for the distance; `nil` online or without a point.
    let point: Coordinate?
    /// Memory taken, roughly: its texts and an allowance for the rest.
    let bytes: Int

    private static let versions = Atomic<UInt64>(0)

    init(meeting: Meeting, isListed: Bool, point: Coordinate?) {
        var meeting = meeting
        meeting.distanceKm = nil
        self.meeting = meeting
        self.isListed = isListed
        self.point = point
        version = Self.versions.wrappingAdd(1, ordering: .relaxed).newValue
        let place = meeting.place.map { [$0.name, $0.address, $0.city, $0.country, $0.timeZone] } ?? []
        let texts = [meeting.id, meeting.organizerId, meeting.title, meeting.description, meeting.photoId ?? ""]
            + place + meeting.activityIds
        bytes = texts.reduce(512) { $0 + $1.utf8.count + 16 }
    }
}
