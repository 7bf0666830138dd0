import MeetCore
import Synchronization

/// Meetings as the feed writes them, up to their distance: the same few meetings lead the
/// pages of a whole city, and writing one anew took 3 µs, a seventh of a date feed request
/// (issue 21). One text per meeting, with the version of the reading it was written from
/// (`PageMeeting.version`): a meeting changed since is read anew under another version, so a
/// kept text is never stale, and finding it costs no comparison of meetings. The text is a
/// function of the reading, so one process-wide store is as safe as one per application.
/// Bounded: past `byteBudget` of text it starts afresh.
final class RenderedMeetings: Sendable {
    /// The store the feed's pages share: 8 MiB of text, some 14,000 meetings of a typical
    /// size.
    static let shared = RenderedMeetings(byteBudget: 8 << 20)

    private struct Rendered {
        var version: UInt64
        /// The object from its opening brace through its last field before `distanceKm`.
        var json: [UInt8]
    }

    private struct Store {
        /// Per meeting id.
        var rendered: [String: Rendered] = [:]
        /// The texts' bytes together.
        var bytes = 0
    }

    private let byteBudget: Int
    private let store = Mutex(Store())

    init(byteBudget: Int) {
        self.byteBudget = byteBudget
    }

    /// `shown` as an unclosed JSON object: the kept text, else written by `write` and kept.
    func json(of shown: PageMeeting, write: (Meeting) -> [UInt8]) -> [UInt8] {
        let id = shown.meeting.id
        if let rendered = store.withLock({ $0.rendered[id] }), rendered.version == shown.version { return rendered.json }
        let json = write(shown.meeting)
        store.withLock { store in
            if let old = store.rendered.removeValue(forKey: id) { store.bytes -= old.json.count }
            if store.bytes + json.count > byteBudget { store = Store() }
            store.rendered[id] = Rendered(version: shown.version, json: json)
            store.bytes += json.count
        }
        return json
    }
}
