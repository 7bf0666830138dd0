/// The meetings feed pages showed lately, as pages show them, so that a page reads from the
/// database only those it has not seen: the same few meetings lead the date feed of a whole
/// city, and reading 20 rows and their activities was a sixth of a feed request (issue 21).
///
/// It is kept exactly as fresh as `FeedIndex`: the index drops from it every meeting a
/// commit touches (joins, leaves and activity edits touch the meeting row too, by triggers)
/// on the writer, before the write returns, and those another process changed when the
/// change log brings them (`FeedIndex.follow`).
typealias FeedPageMeetings = KeptReadings<Int64, PageMeeting>

extension KeptReadings where Key == Int64, Value == PageMeeting {
    /// What the kept meetings and their texts as pages show them may take together
    /// (`PageMeeting.bytes`): some 50,000 meetings like the benchmark's, 2,000 with the
    /// longest descriptions. The benchmark's 20,000 relevance first pages, over a world of
    /// 100,000 meetings, show 22,000 meetings (28 MiB); at 24 MiB the cache started afresh
    /// within every pass, and reading the meetings again took a sixth of a request (issue 21).
    static var byteBudget: Int { 64 << 20 }

    convenience init() {
        self.init(budget: Self.byteBudget) { $1.bytes }
    }
}
