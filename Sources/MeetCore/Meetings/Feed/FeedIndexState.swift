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
    var memberCount: Int32
    /// The maximum of participants, 0 without one.
    var capacity: Int32
    var organizer: UInt32
    var placement: Placement
    var isFree: Bool

    var hasSpots: Bool { capacity == 0 || memberCount < capacity }
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
/// three ways in — a latitude/longitude grid of cells, the list of online meetings, and all
/// of them in time order — plus, per user, the meetings they are a member of.
///
/// Slots of removed meetings are reused; every list holds slots, never copies of entries.
struct FeedIndexState: Sendable {
    /// The grid's cell edge in degrees: about 11 km of latitude, so a 25 km circle reads a
    /// few dozen cells and little outside the circle.
    static let cellDegrees = 0.1

    private(set) var entries: [FeedEntry] = []
    /// Per slot, the meeting's interned activities and members.
    private(set) var activityLists: [[UInt32]] = []
    private(set) var memberLists: [[UInt32]] = []
    private var slots: [Int64: Int32] = [:]
    private var freeSlots: [Int32] = []
    private(set) var cells: [Int64: [Int32]] = [:]
    private(set) var online: [Int32] = []
    /// Every entry, by `(startsAt, number)`.
    private(set) var byTime: [Int32] = []
    /// Per interned user, the slots of the meetings they are a member of.
    private(set) var meetingsOf: [[Int32]] = []
    private(set) var users: [String: UInt32] = [:]
    private(set) var activities: [String: UInt32] = [:]

    var count: Int { slots.count }

    func slot(of number: Int64) -> Int32? { slots[number] }

    /// Puts `row` in the index, replacing what it held for the same meeting.
    mutating func upsert(_ row: FeedRow) {
        remove(row.number)
        let entry = FeedEntry(
            number: row.number, startsAt: row.startsAt, lat: row.lat ?? 0, lon: row.lon ?? 0,
            memberCount: Int32(clamping: row.memberCount), capacity: Int32(clamping: row.maxParticipants ?? 0),
            organizer: intern(user: row.organizerId),
            placement: row.online ? .online : (row.lat != nil && row.lon != nil ? .located : .unplaced),
            isFree: row.isFree)
        let activities = row.activityIds.map { intern(activity: $0) }
        let members = row.memberIds.map { intern(user: $0) }
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
        switch entry.placement {
        case .located: cells[Self.cell(lat: entry.lat, lon: entry.lon), default: []].append(slot)
        case .online: online.append(slot)
        case .unplaced: break
        }
        byTime.insert(slot, at: timePosition(of: entry))
        for member in members { meetingsOf[Int(member)].append(slot) }
    }

    /// Takes the meeting out of the index, if it is there.
    mutating func remove(_ number: Int64) {
        guard let slot = slots.removeValue(forKey: number) else { return }
        let entry = entries[Int(slot)]
        switch entry.placement {
        case .located:
            let key = Self.cell(lat: entry.lat, lon: entry.lon)
            cells[key]?.removeFirst(slot)
            if cells[key]?.isEmpty == true { cells[key] = nil }
        case .online: online.removeFirst(slot)
        case .unplaced: break
        }
        byTime.remove(at: timePosition(of: entry))
        for member in memberLists[Int(slot)] { meetingsOf[Int(member)].removeFirst(slot) }
        activityLists[Int(slot)] = []
        memberLists[Int(slot)] = []
        freeSlots.append(slot)
    }

    /// Drops the meetings starting before `time`: they are the first in time order.
    mutating func prune(before time: Double) {
        while let first = byTime.first, entries[Int(first)].startsAt < time {
            remove(entries[Int(first)].number)
        }
    }

    /// Where `entry` is or belongs in `byTime`.
    func timePosition(of entry: FeedEntry) -> Int {
        firstPosition { ($0.startsAt, $0.number) >= (entry.startsAt, entry.number) }
    }

    /// The position of the first entry of `byTime` starting at or after `time`.
    func timePosition(from time: Double) -> Int {
        firstPosition { $0.startsAt >= time }
    }

    /// Binary search over `byTime` for the first entry where `isAfter` holds.
    private func firstPosition(where isAfter: (FeedEntry) -> Bool) -> Int {
        var (low, high) = (0, byTime.count)
        while low < high {
            let middle = (low + high) / 2
            if isAfter(entries[Int(byTime[middle])]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Roughly the memory the index takes: its arrays by capacity, dictionaries by count
    /// with their keys and values (hash table overhead left out).
    var footprintBytes: Int {
        func list<T>(_ array: [T]) -> Int { array.capacity * MemoryLayout<T>.stride }
        func lists<T>(_ arrays: [[T]]) -> Int { list(arrays) + arrays.reduce(0) { $0 + list($1) + 32 } }
        let cellBytes = cells.values.reduce(cells.count * 16) { $0 + list($1) + 32 }
        let names = users.keys.reduce(0) { $0 + $1.utf8.count + 20 } + activities.keys.reduce(0) { $0 + $1.utf8.count + 20 }
        return list(entries) + lists(activityLists) + lists(memberLists) + slots.count * 12 + list(freeSlots)
            + cellBytes + list(online) + list(byTime) + lists(meetingsOf) + names
    }

    /// The grid cell of a point, as one integer key.
    static func cell(lat: Double, lon: Double) -> Int64 {
        cell(latIndex: Int64((lat / cellDegrees).rounded(.down)), lonIndex: Int64((lon / cellDegrees).rounded(.down)))
    }

    static func cell(latIndex: Int64, lonIndex: Int64) -> Int64 {
        latIndex << 32 | (lonIndex & 0xFFFF_FFFF)
    }

    private mutating func intern(user id: String) -> UInt32 {
        if let number = users[id] { return number }
        let number = UInt32(users.count)
        users[id] = number
        meetingsOf.append([])
        return number
    }

    private mutating func intern(activity id: String) -> UInt32 {
        if let number = activities[id] { return number }
        let number = UInt32(activities.count)
        activities[id] = number
        return number
    }
}

extension Array where Element == Int32 {
    /// Removes the first occurrence of `slot`; lists are short (a cell, a user's meetings).
    fileprivate mutating func removeFirst(_ slot: Int32) {
        if let position = firstIndex(of: slot) { remove(at: position) }
    }
}
