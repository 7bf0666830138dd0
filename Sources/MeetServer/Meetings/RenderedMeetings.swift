import MeetCore
import Synchronization

/// Meetings as the feed writes them, up to their distance: the same few meetings lead the
/// pages of a whole city, and writing one anew took 3 µs, a seventh of a date feed request
/// (issue 21). A text is kept under the version of the reading it was written from
/// (`PageMeeting.version`): a meeting changed since is read anew under another version, so
/// a kept text is never stale, and finding it costs no comparison of meetings. The text is a
/// function of the reading, so one process-wide store is as safe as one per application.
/// Bounded: past `byteBudget` of text it starts afresh.
final class RenderedMeetings: Sendable {
    /// The store the feed's pages share: 8 MiB of text, some 14,000 meetings of a typical
    /// size.
    static let shared = RenderedMeetings(byteBudget: 8 << 20)

    private struct Store {
        /// The object from its opening brace through its last field before `distanceKm`,
        /// per version.
        var rendered: [UInt64: [UInt8]] = [:]
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
        if let json = store.withLock({ $0.rendered[shown.version] }) { return json }
        let json = write(shown.meeting)
        store.withLock { store in
            if store.bytes + json.count > byteBudget { store = Store() }
            store.rendered[shown.version] = json
            store.bytes += json.count
        }
        return json
    }
}
