import Foundation
import MeetCore

// Seeds 100,000 meetings and 10,000 users into a fresh SQLite file, then times the nearby +
// relevance feed query through MeetingService, the code the HTTP route calls.
//
//     swift run -c release FeedBenchmark [meetings] [users] [queries] [concurrency]

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let meetingCount = arguments.count > 0 ? arguments[0] : 100_000
let userCount = arguments.count > 1 ? arguments[1] : 10_000
let queryCount = arguments.count > 2 ? arguments[2] : 2_000
let concurrency = arguments.count > 3 ? arguments[3] : 1

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feed-benchmark-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let database = try AppDatabase(path: directory.appendingPathComponent("meetupd.sqlite").path)
let now = Date()
let service = MeetingService(database: database, resolvePlace: { _ in nil }, now: { now })

let clock = ContinuousClock()
var seeder = Seeder(random: SplitMix(state: 42), now: now)
let seeding = try clock.measure { try seeder.seed(database, users: userCount, meetings: meetingCount) }
print("seeded \(meetingCount) meetings, \(userCount) users in \(seeding)")

/// One feed request as a phone would send it: a user somewhere in a city, 25 km around.
@Sendable func request(_ n: Int) -> (FeedRequest, String) {
    var random = SplitMix(state: UInt64(n) &* 7919)
    let city = Seeder.cities[random.below(Seeder.cities.count)]
    let feed = FeedRequest(
        lat: city.lat + random.gaussian() * 0.05, lon: city.lon + random.gaussian() * 0.05, radiusKm: 25,
        sort: .relevance, limit: 20)
    return (feed, "user\(random.below(userCount))")
}

func run(_ label: String, queries: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
    for n in 0..<100 { try await body(n) }  // warm up caches and connections
    let started = clock.now
    let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                var own: [Duration] = []
                for n in stride(from: worker, to: queries, by: concurrency) {
                    own.append(try await clock.measure { try await body(n) })
                }
                return own
            }
        }
        return try await group.reduce(into: []) { $0 += $1 }.sorted()
    }
    let elapsed = clock.now - started
    func percentile(_ p: Double) -> String {
        let value = latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        return String(format: "%.2f ms", Double(value.components.attoseconds) / 1e15 + Double(value.components.seconds) * 1000)
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("\(label): \(queries) queries, concurrency \(concurrency): p50 \(percentile(0.5)), p90 \(percentile(0.9)), "
        + "p99 \(percentile(0.99)), max \(percentile(1)); \(String(format: "%.0f", Double(queries) / seconds)) queries/s")
}

var itemCount = 0
for n in 0..<50 { itemCount += try await service.feed(request(n).0, viewer: request(n).1).items.count }
print("average page: \(itemCount / 50) meetings")

try await run("nearby + relevance, first page", queries: queryCount) { n in
    let (feed, viewer) = request(n)
    _ = try await service.feed(feed, viewer: viewer)
}
try await run("nearby + date, first page", queries: queryCount) { n in
    var (feed, viewer) = request(n)
    feed.sort = .date
    _ = try await service.feed(feed, viewer: viewer)
}
