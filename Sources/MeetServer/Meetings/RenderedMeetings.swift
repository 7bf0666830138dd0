import MeetCore
import Synchronization

/// Meetings as the feed writes them, up to their distance: the same few meetings lead the
/// pages of a whole city, and writing one anew took 3 µs, a seventh of a date feed request
/// (issue 21). A kept text serves only a meeting equal to the one it was written from, so a
/// meeting changed in any field is written afresh; the text is a function of the value, so
/// one process-wide store is as safe as one per application. Bounded: past `capacity`
/// meetings it starts afresh.
final class RenderedMeetings: Sendable {
    /// The store the feed's pages share.
    static let shared = RenderedMeetings(capacity: 8192)

    private struct Rendered {
        var meeting: Meeting
        /// The object from its opening brace through its last field before `distanceKm`.
        var json: [UInt8]
    }

    private let capacity: Int
    private let kept = Mutex([String: Rendered]())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// `meeting` without its distance, as an unclosed JSON object: from the kept text when
    /// the meeting is unchanged, else written by `write` and kept.
    func json(of meeting: Meeting, write: (Meeting) -> [UInt8]) -> [UInt8] {
        var meeting = meeting
        meeting.distanceKm = nil
        if let rendered = kept.withLock({ $0[meeting.id] }), rendered.meeting == meeting { return rendered.json }
        let json = write(meeting)
        kept.withLock { kept in
            if kept.count >= capacity { kept.removeAll(keepingCapacity: true) }
            kept[meeting.id] = Rendered(meeting: meeting, json: json)
        }
        return json
    }
}
