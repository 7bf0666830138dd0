import Foundation
import GRDB
import MeetCore

/// `FeedBenchmark seed-http DATA_DIR REQUESTS_DIR [meetings] [users] [lines]`: seeds the
/// same world as the in-process benchmark into a meetupd data directory (once: a directory
/// already seeded is reused) and writes HTTPLoad's request files, `feed-relevance.txt` and
/// `feed-date.txt`, with fresh bearer tokens of the seeded users.
struct HTTPSeeding {
    static let usage = "usage: FeedBenchmark seed-http DATA_DIR REQUESTS_DIR [meetings] [users] [lines]"

    var dataDirectory: String
    var requestsDirectory: String
    var meetings = 100_000
    var users = 10_000
    /// Request lines per file: phone request 0, 1, 2... like the in-process benchmark's.
    var lines = 20_000

    init?(arguments: [String]) {
        guard (2...5).contains(arguments.count) else { return nil }
        let counts = arguments.dropFirst(2).map { Int($0) }
        guard counts.allSatisfy({ ($0 ?? 0) > 0 }) else { return nil }
        dataDirectory = arguments[0]
        requestsDirectory = arguments[1]
        if counts.count > 0 { meetings = counts[0]! }
        if counts.count > 1 { users = counts[1]! }
        if counts.count > 2 { lines = counts[2]! }
    }

    func run() throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let pool = try AppDatabase.openPool(path: dataDirectory + "/" + AppDatabase.fileName)
        _ = try AppDatabase(pool)  // migrates
        let now = Date()
        let seededUsers = try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user") ?? 0 }
        let users: Int
        if seededUsers == 0 {
            var seeder = Seeder(random: SplitMix(state: 42), now: now)
            let seeding = try ContinuousClock().measure { try seeder.seed(pool, users: self.users, meetings: meetings) }
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            print("seeded \(meetings) meetings, \(self.users) users into \(dataDirectory) in \(seeding)")
            users = self.users
        } else {
            print("reusing the \(seededUsers) users seeded in \(dataDirectory)")
            users = seededUsers
        }

        let phones = (0..<lines).map { PhoneRequest($0, users: users) }
        let tokens = try pool.write { db in
            // Only the last run's sessions are kept, so that reruns do not pile up tokens.
            try db.execute(sql: "DELETE FROM accessToken")
            var tokens: [Int: String] = [:]
            for phone in phones where tokens[phone.viewer] == nil {
                tokens[phone.viewer] = try AccountService.openSession(for: Seeder.userId(phone.viewer), at: now, in: db)
            }
            return tokens
        }
        try FileManager.default.createDirectory(atPath: requestsDirectory, withIntermediateDirectories: true)
        for sort in [FeedRequest.Sort.relevance, .date] {
            let text = phones.map { phone in
                "GET \(phone.target(sort: sort))\tAuthorization: Bearer \(tokens[phone.viewer]!)\n"
            }.joined()
            let path = requestsDirectory + "/feed-\(sort.rawValue).txt"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            print("wrote \(lines) requests (\(tokens.count) users signed in) to \(path)")
        }
    }
}
