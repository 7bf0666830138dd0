import Foundation
import GRDB

extension MeetingService {
    /// How many results one feed query ranks at most; refine the filters to see others.
    public static let feedDepth = 1000

    /// How deep a first page ranks: five pages. Most clients never scroll that far, and the
    /// shallower the depth, the sooner the ranking's bounds turn candidates away (a third of
    /// a relevance page's CPU, issue 21); the later page that reaches the end of the five
    /// ranks again to `feedDepth`.
    static func firstDepth(limit: Int) -> Int { min(feedDepth, 5 * limit) }

    /// A page of public, scheduled meetings matching `request`, ordered as asked.
    public func feed(_ request: FeedRequest, viewer viewerId: String) async throws -> FeedPage {
        try await feed(request, caller: .user(viewerId)).page
    }

    /// `feed(_:viewer:)` for a caller known by a bearer token not checked yet: a token found
    /// valid lately is taken from `grants` (no SHA-256, no query: issue 21), any other is
    /// checked by `accounts` inside the feed's own read, which saves a request a second hop to
    /// a reader. `nil` when the token is refused; checks come in the same order as with a
    /// token checked first: the token, then the request's values.
    public func feed(
        _ request: FeedRequest, bearer secret: String, accounts: AccountService, grants: RoomGrants
    ) async throws -> FeedPage? {
        if let userId = grants.user(ofToken: secret) { return try await feed(request, caller: .user(userId)).page }
        let generation = grants.currentGeneration  // before the read: a commit during it makes the grant stale
        do {
            let (page, check) = try await feed(request, caller: .bearer(secret, accounts))
            if let check {
                _ = try await accounts.noteUse(of: check)
                grants.remember(check, token: secret, generation: generation)
            }
            return page
        } catch is FeedCaller.Refused {
            return nil
        }
    }

    private func feed(_ request: FeedRequest, caller: FeedCaller) async throws -> (page: FeedPage, check: AccountService.TokenCheck?) {
        let time = now()
        if request.cursor == nil, case .user(let viewerId) = caller, let viewer = viewers.viewer(viewerId),
           let page = try await firstPage(request, viewer: viewer, of: viewerId, at: time) {
            return (page, nil)
        }
        // The index may not be loaded when a ranking needs it: a failed refresh may drop it
        // between `ready()` and the ranking, a later page may rank deeper before any first
        // page loaded it. Load it and try again, once; an index that cannot stay loaded is
        // the server's fault.
        for attempt in 0..<2 {
            if request.cursor == nil || attempt > 0 { try await index.ready() }
            let generation = index.pageMeetings.generation
            let viewerGeneration = viewers.generation
            let answer = try await database.quickRead { db -> (page: FeedPage, check: AccountService.TokenCheck?)? in
                let (viewerId, check) = try caller.resolve(in: db)
                let page = request.cursor == nil
                    ? try firstPage(request, viewer: viewerId, at: time, readSince: generation, viewerSince: viewerGeneration, in: db)
                    : try laterPage(request, viewer: viewerId, at: time, readSince: generation, in: db)
                return page.map { ($0, check) }
            }
            if let answer { return answer }
        }
        throw MeetError("server.internal", status: 500)
    }

    /// A page after the first, read from the snapshot the first page stored, which it ranks
    /// deeper first when the page reaches its end (`FeedSnapshots.Snapshot.deeper`).
    /// `nil` when that needs the index and it is not loaded.
    private func laterPage(
        _ request: FeedRequest, viewer viewerId: String, at time: Date, readSince generation: UInt64, in db: Database
    ) throws -> FeedPage? {
        try request.validate()
        guard let text = request.cursor, let cursor = FeedCursor(text) else {
            throw MeetError.invalidField("cursor", "field.invalid")
        }
        let end = cursor.offset + request.limit
        guard var snapshot = snapshots.snapshot(cursor.token, viewer: viewerId, now: time, sortedThrough: end) else {
            throw MeetError("feed.cursorExpired", status: 410)
        }
        // Blocks made since the first page hide their meetings from this page on.
        let blocked: [String]
        // At the end, not past it: this page's cursor says whether more follow.
        if end >= snapshot.list.count, let deeper = snapshot.deeper {
            let viewer = try FeedViewer.fetch(viewerId, forRelevance: deeper.sort == .relevance, in: db)
            // Ranked as at the first page, so the meetings it listed keep their order; those
            // that came since join after them.
            guard let ranked = index.rank(
                deeper, from: (deeper.from ?? snapshot.created).timeIntervalSince1970, viewer: viewer,
                at: snapshot.created.timeIntervalSince1970, depth: Self.feedDepth, sorted: end) else { return nil }
            var ranker = snapshot
            ranker.list = snapshot.list.extended(by: ranked, sortedCount: end) ?? snapshot.list
            ranker.deeper = nil
            // Sorted whole: a racing page with another page size may read the stored list
            // anywhere, and a sorted list keeps no keys (4 KB instead of 19).
            ranker.list.sortTail()
            snapshot = snapshots.deepen(cursor.token, to: ranker)
            blocked = viewer.blockedUserIds
        } else {
            blocked = try FeedViewer.blockedUserIds(of: viewerId, in: db)
        }
        let list = snapshot.list
        let numbers = list.numbers(min(cursor.offset, list.count)..<min(end, list.count))
        let next = end < list.count ? FeedCursor(token: cursor.token, offset: end).text : nil
        return try page(numbers, from: snapshot.center, next: next, hiding: Set(blocked), readSince: generation, in: db)
    }

    /// The first page for a viewer known without a read (`FeedViewers`): ranked from the
    /// index, its meetings from the page cache, and a read only for those the cache lacks.
    /// `nil` when the index is not loaded.
    private func firstPage(_ request: FeedRequest, viewer: FeedViewer, of viewerId: String, at time: Date) async throws -> FeedPage? {
        try request.validate()
        try await index.ready()
        let generation = index.pageMeetings.generation
        guard let first = firstRanking(request, viewer: viewer, of: viewerId, at: time) else { return nil }
        var found = index.pageMeetings.values(first.numbers)
        if found.count < first.numbers.count {
            found = try await database.quickRead { [found] db in
                try completed(found, with: first.numbers, readSince: generation, in: db)
            }
        }
        return page(first.numbers, showing: found, from: first.center, next: first.next, hiding: [])
    }

    /// The first page from the loaded index: the viewer's blocks, friends and activities
    /// (kept in `viewers` for the next page, if no change to them committed since
    /// `viewerGeneration`), then the page's meetings. `nil` when the index is not loaded.
    private func firstPage(
        _ request: FeedRequest, viewer viewerId: String, at time: Date, readSince generation: UInt64,
        viewerSince viewerGeneration: UInt64, in db: Database
    ) throws -> FeedPage? {
        try request.validate()
        // Whole whatever the order, so that any order's next first page can use it.
        let viewer = try FeedViewer.fetch(viewerId, forRelevance: true, in: db)
        viewers.remember(viewer, of: viewerId, readSince: viewerGeneration)
        guard let first = firstRanking(request, viewer: viewer, of: viewerId, at: time) else { return nil }
        return try page(first.numbers, from: first.center, next: first.next, hiding: [], readSince: generation, in: db)
    }

    /// The meetings a first page shows, the point their distances are measured from, and the
    /// cursor to the next page, whose list it stores. `nil` when the index is not loaded.
    private func firstRanking(
        _ request: FeedRequest, viewer: FeedViewer, of viewerId: String, at time: Date
    ) -> (numbers: [Int64], center: Coordinate?, next: String?)? {
        let depth = Self.firstDepth(limit: request.limit)
        guard let ranked = index.rank(
            request, from: (request.from ?? time).timeIntervalSince1970, viewer: viewer,
            at: time.timeIntervalSince1970, depth: depth, sorted: request.limit) else { return nil }
        let center = request.circle.map { Coordinate(lat: $0.lat, lon: $0.lon) }
        var next: String?
        // Only a list longer than one page needs remembering; a full one may go deeper.
        if ranked.count > request.limit, let list = FeedList(ranked, sortedCount: request.limit) {
            let deeper = ranked.count == depth && depth < Self.feedDepth ? request : nil
            let token = snapshots.store(FeedSnapshots.Snapshot(viewerId: viewerId, created: time, center: center, list: list, deeper: deeper))
            next = FeedCursor(token: token, offset: request.limit).text
        }
        return (ranked.prefix(request.limit).map(\.number), center, next)
    }

    /// The meetings `numbers`, in that order, as they are now (`page(_:showing:from:next:hiding:)`):
    /// those pages showed lately come from `FeedIndex.pageMeetings`, the others from `db`.
    private func page(
        _ numbers: [Int64], from center: Coordinate?, next: String?, hiding hiddenOrganizers: Set<String>,
        readSince generation: UInt64, in db: Database
    ) throws -> FeedPage {
        let found = try completed(index.pageMeetings.values(numbers), with: numbers, readSince: generation, in: db)
        return page(numbers, showing: found, from: center, next: next, hiding: hiddenOrganizers)
    }

    /// `found` with those of `numbers` it lacks read from `db`, and kept in
    /// `FeedIndex.pageMeetings` if nothing changed since `generation`.
    private func completed(
        _ found: [Int64: PageMeeting], with numbers: [Int64], readSince generation: UInt64, in db: Database
    ) throws -> [Int64: PageMeeting] {
        let missing = numbers.filter { found[$0] == nil }
        guard !missing.isEmpty else { return found }
        let read = try pageMeetings(missing, in: db)
        index.pageMeetings.keep(read, readSince: generation)
        return found.merging(read) { kept, _ in kept }
    }

    /// The meetings `numbers`, in that order, from `found`: meetings not found, cancelled or
    /// made private since the first page, or organized by someone in `hiddenOrganizers`, drop
    /// out; the rest keep their place. Distances are measured from `center`, to where each
    /// meeting is now.
    private func page(
        _ numbers: [Int64], showing found: [Int64: PageMeeting], from center: Coordinate?, next: String?,
        hiding hiddenOrganizers: Set<String>
    ) -> FeedPage {
        let items = numbers.compactMap { number -> FeedPage.Item? in
            guard let shown = found[number], shown.isListed, !hiddenOrganizers.contains(shown.meeting.organizerId) else { return nil }
            var distanceKm: Double?
            if let center, let point = shown.point { distanceKm = center.distanceKm(to: point) }
            return FeedPage.Item(shown: shown, distanceKm: distanceKm)
        }
        return FeedPage(entries: items, nextCursor: next)
    }

    /// The meetings `numbers` read from `db`, as pages show them; those not found are left out.
    private func pageMeetings(_ numbers: [Int64], in db: Database) throws -> [Int64: PageMeeting] {
        let numbersJSON = "[" + numbers.map(String.init).joined(separator: ",") + "]"
        // Cached statements: the same two queries for every page.
        let records = try MeetingRecord.fetchAll(
            db.cachedStatement(sql: "SELECT \(MeetingRecord.columnList) FROM meeting WHERE number IN (SELECT value FROM json_each(?))"), arguments: [numbersJSON])
        var activities: [Int64: [String]] = [:]
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT m.number, a.activityId FROM meeting m JOIN meetingActivity a ON a.meetingId = m.id
            WHERE m.number IN (SELECT value FROM json_each(?)) ORDER BY a.activityId
            """), arguments: [numbersJSON])
        while let row = try rows.next() {
            activities[row[0], default: []].append(row[1])
        }
        var items: [Int64: PageMeeting] = [:]
        for record in records {
            guard let number = record.number else { continue }
            var point: Coordinate?
            if !record.online, let lat = record.lat, let lon = record.lon { point = Coordinate(lat: lat, lon: lon) }
            items[number] = PageMeeting(
                meeting: record.meeting(activityIds: activities[number] ?? []),
                isListed: !record.isCancelled && record.visibility == .public, point: point)
        }
        return items
    }
}

/// Who asks for a feed page: a user already signed in, or a bearer token to check inside the
/// feed's read.
private enum FeedCaller: Sendable {
    case user(String)
    case bearer(String, AccountService)

    /// The token was refused.
    struct Refused: Error {}

    /// The viewer's id, and the token check whose use is to be noted after the read.
    func resolve(in db: Database) throws -> (String, AccountService.TokenCheck?) {
        switch self {
        case .user(let id):
            return (id, nil)
        case .bearer(let secret, let accounts):
            guard let check = try accounts.checkToken(bearer: secret, in: db) else { throw Refused() }
            return (check.authentication.userId, check)
        }
    }
}
