import MeetCore
import Synchronization

/// Meetings as the feed writes them, up to their distance: the same few meetings lead the
/// pages of a whole city, and writing one anew took 3 µs, a seventh of a date feed request
/// (issue 21). A kept text serves only a meeting equal to the one it was written from, so a
/// meeting changed in any field is written afresh; the text is a function of the value, so
/// one process-wide store is as safe as one per application. Bounded: past `byteBudget` of
/// text it starts afresh.
final class RenderedMeetings: Sendable {
    /// The store the feed's pages share: 8 MiB of text, some 14,000 meetings of a typical
    /// size, each with its `Meeting` (about as large again).
    static let shared = RenderedMeetings(byteBudget: 8 << 20)

    private struct Rendered {
        var meeting: Meeting
        /// The object from its opening brace through its last field before `distanceKm`.
        var json: [UInt8]
    }

    private struct Store {
        var rendered: [String: Rendered] = [:]
        /// The texts' bytes together.
        var bytes = 0
    }

    private let byteBudget: Int
    private let store = Mutex(Store())

    init(byteBudget: Int) {
        self.byteBudget = byteBudget
    }

    /// `meeting` without its distance, as an unclosed JSON object: from the kept text when
    /// the meeting is unchanged, else written by `write` and kept.
    func json(of meeting: Meeting, write: (Meeting) -> [UInt8]) -> [UInt8] {
        var meeting = meeting
        meeting.distanceKm = nil
        if let rendered = store.withLock({ $0.rendered[meeting.id] }), rendered.meeting == meeting { return rendered.json }
        let json = write(meeting)
        store.withLock { store in
            if let old = store.rendered.removeValue(forKey: meeting.id) { store.bytes -= old.json.count }
            if store.bytes + json.count > byteBudget { store = Store() }
            store.rendered[meeting.id] = Rendered(meeting: meeting, json: json)
            store.bytes += json.count
        }
        return json
    }
}
