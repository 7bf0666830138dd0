import Foundation

/// One listed meeting as the feed index keeps it: what filtering and ranking read, as a
/// flat value (no references, so reading it costs no reference counting). Its activities
/// and members sit beside it in `FeedIndexState`, interned as small integers.
struct FeedEntry: Sendable, Equatable {
    enum Placement: UInt8, Sendable {
        /// Has a point on the map: found through the grid.
        case located
        /// Online or global: joins every nearby feed.
        case online
        /// Neither: only the feed without a point shows it.
        case unplaced
    }

    var number: Int64
    var startsAt: Double
    var lat: Double
    var lon: Double
    /// The point on the unit sphere, so that a distance needs no trigonometry
    /// (`CircleDistance`).
    var x: Double
    var y: Double
    var z: Double
    var memberCount: Int32
    /// The maximum of participants, 0 without one.
    var capacity: Int32
    var organizer: UInt32
    var placement: Placement
    var isFree: Bool
    /// How many activities it has (the activities themselves are in `meetingsWith`).
    var activityCount: UInt8

    var hasSpots: Bool { capacity == 0 || memberCount < capacity }

    /// Its band of `Relevance.fullness`, in steps of 1 / `FeedIndexState.fullnessBands` from
    /// 0: the online meetings are kept by band (`FeedIndexState.online`).
    var fullnessBand: Int {
        let bands = FeedIndexState.fullnessBands
        let fullness = Relevance.fullness(memberCount: Int(memberCount), capacity: capacity == 0 ? nil : Int(capacity))
        return min(bands - 1, Int(Double(bands) * fullness))
    }
}

/// A meeting as read from the database, before its ids are interned.
struct FeedRow: Sendable, Equatable {
    var number: Int64
    var startsAt: Double
    var online: Bool
    var lat: Double?
    var lon: Double?
    var memberCount: Int
    var maxParticipants: Int?
    var isFree: Bool
    var organizerId: String
    var activityIds: [String] = []
    var memberIds: [String] = []
}

/// The storage behind `FeedIndex`: every listed upcoming meeting once in `entries`, and
/// three ways in — a latitude/longitude grid of cells, the online meetings by fullness, and
/// all of them in time order — plus the reverse lists ranking needs: per user the meetings they
/// are a member of, per activity the meetings that have it.
///
/// The online meetings are kept in ten bands by how full they are: every nearby feed reads
/// them (about 4,600 of the benchmark's 90,000), and by band the relevance order knows
/// where in a list no later meeting can rank (`FeedIndexState.rank`).
///
/// Every list holds slots (positions in `entries`), never copies. A query reads thousands
/// of entries, so they are flat values, laid out at load so that each cell's meetings and
/// the online ones sit side by side in memory; slots of removed meetings are reused.
/// Each cell's list and each online list are in time order, like `byTime`, so that the date
/// order near a point can take them by windows of time and stop after a page's depth
/// (`rankByDate`).
struct FeedIndexState: Sendable {
    /// The grid's cell edge in degrees: about 11 km of latitude, so a 25 km circle reads a
    /// few dozen cells and little outside the circle.
    static let cellDegrees = 0.1

    /// How many bands of fullness the online meetings are kept in.
    static let fullnessBands = 10

    private(set) var entries: [FeedEntry] = []
    /// Per slot, the meeting's interned activities and members, for updates.
    private(set) var activityLists: [[UInt32]] = []
    private(set) var memberLists: [[UInt32]] = []
    private var slots: [Int64: Int32] = [:]
    private var freeSlots: [Int32] = []
    /// Per grid cell, where its list is in `cellLists`.
    private(set) var cells: [Int64: Int32] = [:]
    /// Per grid cell (`cells`), its located meetings by `(startsAt, number)`; a cell left
    /// empty keeps its place. Side by side in one array, which a query reads in place: a list
    /// copied out of a dictionary cost a retain and a release of it for each cell a query
    /// read, on counts the cores fought over (issue 21).
    private(set) var cellLists: [[Int32]] = []
    /// The online meetings by fullness band (`FeedEntry.fullnessBand`), each band by
    /// `(startsAt, number)`.
    private(set) var online = [[Int32]](repeating: [], count: fullnessBands)
    /// Every entry, by `(startsAt, number)`.
    private(set) var byTime: [Int32] = []
    /// Per interned user, the meetings they are a member of.
    private(set) var meetingsOf: [[ListedSlot]] = []
    /// Per interned activity, the meetings that have it.
    private(set) var meetingsWith: [[ListedSlot]] = []
    private(set) var users: [String: UInt32] = [:]
    private(set) var activities: [String: UInt32] = [:]

    var count: Int { slots.count }

    init() {}

    /// An index of `rows` built at once: placed by cell and time (so that each list is
    /// appended to in order), then put in time order.
    init(loading rows: [FeedRow]) {
        func home(_ row: FeedRow) -> (Int, Int64, Double, Int64) {
            guard !row.online, let lat = row.lat, let lon = row.lon else { return (row.online ? 1 : 2, 0, row.startsAt, row.number) }
            return (0, Self.cell(lat: lat, lon: lon), row.startsAt, row.number)
        }
        for row in rows.sorted(by: { home($0) < home($1) }) { place(row) }
        byTime = Array(entries.indices.lazy.map(Int32.init)).sorted {
            (entries[Int($0)].startsAt, entries[Int($0)].number) < (entries[Int($1)].startsAt, entries[Int($1)].number)
        }
    }

    /// Puts `row` in the index, replacing what it held for the same meeting.
    mutating func upsert(_ row: FeedRow) {
        remove(row.number)
        let slot = place(row)
        byTime.insert(slot, at: timePosition(of: entries[Int(slot)]))
    }

    /// Stores `row` in a slot and every list but `byTime`; in its cell's list or its online
    /// band at its place in time (a binary search and a move of the later slots: a cell
    /// holds at most a few hundred, a band at most a few thousand, where `byTime`'s insert
    /// moves up to every slot).
    @discardableResult
    private mutating func place(_ row: FeedRow) -> Int32 {
        let activities = row.activityIds.map { Self.intern($0, in: &self.activities, lists: &meetingsWith) }
        let members = row.memberIds.map { Self.intern($0, in: &users, lists: &meetingsOf) }
        let (lat, lon) = (row.lat ?? 0, row.lon ?? 0)
        let (φ, λ) = (lat * .pi / 180, lon * .pi / 180)
        let entry = FeedEntry(
            number: row.number, startsAt: row.startsAt, lat: lat, lon: lon, x: cos(φ) * cos(λ), y: cos(φ) * sin(λ), z: sin(φ),
            memberCount: Int32(clamping: row.memberCount), capacity: Int32(clamping: row.maxParticipants ?? 0),
            organizer: Self.intern(row.organizerId, in: &users, lists: &meetingsOf),
            placement: row.online ? .online : (row.lat != nil && row.lon != nil ? .located : .unplaced),
            isFree: row.isFree, activityCount: UInt8(clamping: activities.count))
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            entries[Int(slot)] = entry
            activityLists[Int(slot)] = activities
            memberLists[Int(slot)] = members
        } else {
            slot = Int32(entries.count)
            entries.append(entry)
            activityLists.append(activities)
            memberLists.append(members)
        }
        slots[entry.number] = slot
        var listing = ListedSlot.nowhere
        switch entry.placement {
        case .located:
            let key = Self.cell(lat: entry.lat, lon: entry.lon)
            let cell: Int
            if let known = cells[key] {
                cell = Int(known)
            } else {
                cell = cellLists.count
                cells[key] = Int32(cell)
                cellLists.append([])
            }
            cellLists[cell].insert(slot, at: timePosition(of: entry, in: cellLists[cell]))
            listing = Int32(cell)
        case .online:
            let band = entry.fullnessBand
            online[band].insert(slot, at: timePosition(of: entry, in: online[band]))
            listing = ListedSlot.online
        case .unplaced: break
        }
        let listed = ListedSlot(slot: slot, listing: listing)
        for member in members { meetingsOf[Int(member)].append(listed) }
        for activity in activities { meetingsWith[Int(activity)].append(listed) }
        return slot
    }

    /// Takes the meeting out of the index, if it is there.
    mutating func remove(_ number: Int64) {
        guard let slot = slots.removeValue(forKey: number) else { return }
        let entry = entries[Int(slot)]
        switch entry.placement {
        case .located:
            if let cell = cells[Self.cell(lat: entry.lat, lon: entry.lon)] { cellLists[Int(cell)].removeFirst { $0 == slot } }
        case .online: online[entry.fullnessBand].removeFirst { $0 == slot }
        case .unplaced: break
        }
        byTime.remove(at: timePosition(of: entry))
        for member in memberLists[Int(slot)] { meetingsOf[Int(member)].removeFirst { $0.slot == slot } }
        for activity in activityLists[Int(slot)] { meetingsWith[Int(activity)].removeFirst { $0.slot == slot } }
        activityLists[Int(slot)] = []
        memberLists[Int(slot)] = []
        freeSlots.append(slot)
    }

    /// Whether some meeting starts before `time` (and so should be pruned).
    func hasStarted(before time: Double) -> Bool {
        byTime.first.map { entries[Int($0)].startsAt < time } ?? false
    }

    /// Drops the meetings starting before `time`: they are the first in time order.
    mutating func prune(before time: Double) {
        while let first = byTime.first, entries[Int(first)].startsAt < time {
            remove(entries[Int(first)].number)
        }
    }

    /// Where `entry` is or belongs in `list` (by default `byTime`), a list in time order.
    func timePosition(of entry: FeedEntry, in list: [Int32]? = nil) -> Int {
        firstPosition(in: list ?? byTime) { ($0.startsAt, $0.number) >= (entry.startsAt, entry.number) }
    }

    /// The position of the first entry of `list` (by default `byTime`), a list in time
    /// order, starting at or after `time`.
    func timePosition(from time: Double, in list: [Int32]? = nil) -> Int {
        firstPosition(in: list ?? byTime) { $0.startsAt >= time }
    }

    /// Binary search over `list` for the first entry where `isAfter` holds.
    private func firstPosition(in list: [Int32], where isAfter: (FeedEntry) -> Bool) -> Int {
        var (low, high) = (0, list.count)
        while low < high {
            let middle = (low + high) / 2
            if isAfter(entries[Int(list[middle])]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Roughly the memory the index takes: its arrays by capacity, dictionaries by count
    /// with their keys and values (hash table overhead left out).
    var footprintBytes: Int {
        func list<T>(_ array: [T]) -> Int { array.capacity * MemoryLayout<T>.stride }
        func lists<T>(_ arrays: [[T]]) -> Int { list(arrays) + arrays.reduce(0) { $0 + list($1) + 32 } }
        let cellBytes = cells.count * 12 + lists(cellLists)
        let names = users.keys.reduce(0) { $0 + $1.utf8.count + 20 } + activities.keys.reduce(0) { $0 + $1.utf8.count + 20 }
        return list(entries) + lists(activityLists) + lists(memberLists) + slots.count * 12 + list(freeSlots)
            + cellBytes + lists(online) + list(byTime) + lists(meetingsOf) + lists(meetingsWith) + names
    }

    /// The grid cell of a point, as one integer key.
    static func cell(lat: Double, lon: Double) -> Int64 {
        cell(latIndex: Int64((lat / cellDegrees).rounded(.down)), lonIndex: Int64((lon / cellDegrees).rounded(.down)))
    }

    static func cell(latIndex: Int64, lonIndex: Int64) -> Int64 {
        latIndex << 32 | (lonIndex & 0xFFFF_FFFF)
    }

    /// The small number standing for `id` in `table`: a new one, with an empty reverse list
    /// beside it in `lists`, the first time.
    private static func intern(_ id: String, in table: inout [String: UInt32], lists: inout [[ListedSlot]]) -> UInt32 {
        if let number = table[id] { return number }
        let number = UInt32(table.count)
        table[id] = number
        lists.append([])
        return number
    }
}

/// A meeting's slot, with where a feed around a point finds it: the reverse lists carry it, so
/// that a ranking picks the viewer's ties near the point without reading their entries.
struct ListedSlot: Sendable, Equatable {
    var slot: Int32
    /// Its cell's place in `FeedIndexState.cellLists`, `online`, or `nowhere` (no place).
    var listing: Int32

    static let online: Int32 = -1
    static let nowhere: Int32 = -2
}

extension Array {
    /// Removes the first element that `matches`; lists are short (a cell, a user's meetings,
    /// an activity's ~1,000 meetings) and only writes do this.
    fileprivate mutating func removeFirst(where matches: (Element) -> Bool) {
        if let position = firstIndex(where: matches) { remove(at: position) }
    }
}
