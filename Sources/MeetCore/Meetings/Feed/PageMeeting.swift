import Synchronization

/// A meeting as feed pages show it, without its distance (which depends on the point asked
/// about): read once, then shared by reference between the page cache (`FeedPageMeetings`)
/// and every page that shows it, so that a page copies a pointer rather than the meeting's
/// twenty-odd fields (issue 21: sharing them took a sixth off a date feed request's
/// instructions, callgrind).
package final class PageMeeting: Sendable {
    package let meeting: Meeting
    /// Public and not cancelled: a meeting cancelled or made private since the first page
    /// drops out of later pages.
    let isListed: Bool
    /// Where it is, for the distance; `nil` online or without a point.
    let point: Coordinate?
    /// Memory taken, roughly: its texts and an allowance for the rest, twice: once for the
    /// meeting, once for its text as pages show it (`rendered(by:)`).
    let bytes: Int
    private let rendering = Mutex<[UInt8]?>(nil)

    init(meeting: Meeting, isListed: Bool, point: Coordinate?) {
        var meeting = meeting
        meeting.distanceKm = nil
        self.meeting = meeting
        self.isListed = isListed
        self.point = point
        let place = meeting.place.map { [$0.name, $0.address, $0.city, $0.country, $0.timeZone] } ?? []
        let texts = [meeting.id, meeting.organizerId, meeting.title, meeting.description, meeting.photoId ?? ""]
            + place + meeting.activityIds
        bytes = texts.reduce(1024) { $0 + 2 * $1.utf8.count + 16 }
    }

    /// The meeting's text as pages show it (the server's JSON, `FeedPageJSON`), made by
    /// `make` for the first page that shows this reading and kept for the rest. A meeting
    /// changed since is another reading, so the kept text is never stale; it lives as long as
    /// the reading, within the page cache's budget. Two pages racing may both make it: the
    /// same bytes.
    package func rendered(by make: (Meeting) -> [UInt8]) -> [UInt8] {
        if let kept = rendering.withLock({ $0 }) { return kept }
        let made = make(meeting)
        rendering.withLock { $0 = made }
        return made
    }
}
