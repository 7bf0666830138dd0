import Foundation
import GRDB
import MeetCore

/// Fills a fresh database with a city-shaped world: users with activities and friends,
/// meetings around twenty cities over the next three months, members, a few online ones.
struct Seeder {
    struct City {
        var lat: Double
        var lon: Double
        var timeZone: String
    }

    static let cities: [City] = [
        City(lat: 50.45, lon: 30.52, timeZone: "Europe/Kyiv"), City(lat: 49.84, lon: 24.03, timeZone: "Europe/Kyiv"),
        City(lat: 52.52, lon: 13.40, timeZone: "Europe/Berlin"), City(lat: 48.86, lon: 2.35, timeZone: "Europe/Paris"),
        City(lat: 51.51, lon: -0.13, timeZone: "Europe/London"), City(lat: 40.42, lon: -3.70, timeZone: "Europe/Madrid"),
        City(lat: 41.90, lon: 12.50, timeZone: "Europe/Rome"), City(lat: 52.23, lon: 21.01, timeZone: "Europe/Warsaw"),
        City(lat: 50.08, lon: 14.44, timeZone: "Europe/Prague"), City(lat: 59.33, lon: 18.07, timeZone: "Europe/Stockholm"),
        City(lat: 40.71, lon: -74.01, timeZone: "America/New_York"), City(lat: 34.05, lon: -118.24, timeZone: "America/Los_Angeles"),
        City(lat: 43.65, lon: -79.38, timeZone: "America/Toronto"), City(lat: -23.55, lon: -46.63, timeZone: "America/Sao_Paulo"),
        City(lat: 35.68, lon: 139.69, timeZone: "Asia/Tokyo"), City(lat: 1.35, lon: 103.82, timeZone: "Asia/Singapore"),
        City(lat: -33.87, lon: 151.21, timeZone: "Australia/Sydney"), City(lat: 28.61, lon: 77.21, timeZone: "Asia/Kolkata"),
        City(lat: 30.04, lon: 31.24, timeZone: "Africa/Cairo"), City(lat: 41.01, lon: 28.98, timeZone: "Europe/Istanbul"),
    ]

    var random: SplitMix
    let now: Date

    static func userId(_ n: Int) -> String { "user\(n)" }

    mutating func seed(_ pool: DatabasePool, users: Int, meetings: Int) throws {
        try pool.write { db in
            var activities = try String.fetchAll(db, sql: "SELECT id FROM activity ORDER BY id")
            if activities.isEmpty { activities = (0..<150).map { "activity\($0)" } }
            try seedUsers(users, activities: activities, in: db)
            try seedMeetings(meetings, users: users, activities: activities, in: db)
        }
    }

    private mutating func seedUsers(_ count: Int, activities: [String], in db: Database) throws {
        let user = try db.makeStatement(sql: """
            INSERT INTO user (id, email, displayName, locale, passwordHash, emailConfirmedAt, banned, createdAt)
            VALUES (?, ?, ?, 'en', 'x', ?, 0, ?)
            """)
        let liked = try db.makeStatement(sql: "INSERT OR IGNORE INTO profileActivity (userId, activityId) VALUES (?, ?)")
        let friend = try db.makeStatement(sql: "INSERT OR IGNORE INTO friendship (userId, friendId, since) VALUES (?, ?, ?), (?, ?, ?)")
        for n in 0..<count {
            try user.execute(arguments: [Self.userId(n), "\(Self.userId(n))@example.org", "User \(n)", now, now])
            for _ in 0..<3 { try liked.execute(arguments: [Self.userId(n), activities[random.below(activities.count)]]) }
        }
        for n in 0..<count {
            for _ in 0..<10 {
                let other = random.below(count)
                if other != n { try friend.execute(arguments: [Self.userId(n), Self.userId(other), now, Self.userId(other), Self.userId(n), now]) }
            }
        }
    }

    private mutating func seedMeetings(_ count: Int, users: Int, activities: [String], in db: Database) throws {
        let meeting = try db.makeStatement(sql: """
            INSERT INTO meeting (id, organizerId, title, description, visibility, startsAt, endsAt, online,
                placeName, placeAddress, placeCity, placeCountry, lat, lon, timeZone, priceMinor, currency,
                maxParticipants, membersMayInvite, createdAt, updatedAt)
            VALUES (?, ?, ?, '', ?, ?, ?, ?, 'Spot', '', '', '', ?, ?, ?, ?, ?, ?, 0, ?, ?)
            """)
        let member = try db.makeStatement(sql: "INSERT OR IGNORE INTO meetingMember (meetingId, userId, role, joinedAt) VALUES (?, ?, ?, ?)")
        let activity = try db.makeStatement(sql: "INSERT OR IGNORE INTO meetingActivity (meetingId, activityId) VALUES (?, ?)")
        let created = now.timeIntervalSince1970
        for n in 0..<count {
            let id = "meeting\(n)"
            let city = Self.cities[random.below(Self.cities.count)]
            // Most meetings within ~10 km of the centre, some further out.
            let lat = city.lat + random.gaussian() * 0.09
            let lon = city.lon + random.gaussian() * 0.09 / cos(city.lat * .pi / 180)
            let starts = created + 3600 + random.unit() * 90 * 86_400
            let capacity: Int? = random.unit() < 0.5 ? 5 + random.below(46) : nil
            let priced = random.unit() < 0.2
            let organizer = Self.userId(random.below(users))
            try meeting.execute(arguments: [
                id, organizer, "Meeting \(n)", random.unit() < 0.1 ? "private" : "public", starts, starts + 7200,
                random.unit() < 0.05, lat, lon, city.timeZone, priced ? 500 + random.below(5000) : nil, priced ? "EUR" : nil,
                capacity, created, created,
            ])
            try member.execute(arguments: [id, organizer, "organizer", created])
            let joining = min((capacity ?? 30) - 1, random.below(16))
            for _ in 0..<joining { try member.execute(arguments: [id, Self.userId(random.below(users)), "member", created]) }
            for _ in 0..<(1 + random.below(3)) { try activity.execute(arguments: [id, activities[random.below(activities.count)]]) }
        }
    }
}

/// A small seeded generator, so that every run seeds the same world.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Double { sqrt(-2 * log(max(unit(), 1e-12))) * cos(2 * .pi * unit()) }
}
