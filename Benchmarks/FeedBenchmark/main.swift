import Foundation
import GRDB
import MeetCore

// Seeds 100,000 meetings and 10,000 users into a fresh SQLite file, then times the nearby +
// relevance feed query through MeetingService, the code the HTTP route calls.
//
//     swift run -c release FeedBenchmark [meetings] [users] [queries] [concurrency]
//
// `FeedBenchmark seed-http ...` seeds a meetupd data directory for the HTTP benchmark
// instead (`HTTPSeeding`, `Benchmarks/feed-load.sh`).

if CommandLine.arguments.dropFirst().first == "seed-http" {
    guard let seeding = HTTPSeeding(arguments: Array(CommandLine.arguments.dropFirst(2))) else {
        FileHandle.standardError.write(Data((HTTPSeeding.usage + "\n").utf8))
        exit(2)
    }
    try seeding.run()
    exit(0)
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let meetingCount = arguments.count > 0 ? arguments[0] : 100_000
let userCount = arguments.count > 1 ? arguments[1] : 10_000
let queryCount = arguments.count > 2 ? arguments[2] : 2_000
let concurrency = arguments.count > 3 ? arguments[3] : 1

// FEED_BENCHMARK_DB keeps the seeded file between runs (seeded once, reused after).
let keptFile = ProcessInfo.processInfo.environment["FEED_BENCHMARK_DB"]
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feed-benchmark-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let path = keptFile ?? directory.appendingPathComponent("meetupd.sqlite").path
let alreadySeeded = keptFile.map { FileManager.default.fileExists(atPath: $0) } ?? false
// The benchmark seeds through its own handle on the pool; the service writes only through MeetCore.
let pool = try AppDatabase.openPool(path: path)
let database = try AppDatabase(pool)
let now = Date()
let service = MeetingService(database: database, resolvePlace: { _ in nil }, now: { now })
let clock = ContinuousClock()
if !alreadySeeded {
    var seeder = Seeder(random: SplitMix(state: 42), now: now)
    let seeding = try clock.measure { try seeder.seed(pool, users: userCount, meetings: meetingCount) }
    print("seeded \(meetingCount) meetings, \(userCount) users in \(seeding)")
    // A running server checkpoints as it goes; start from that steady state.
    try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
}

/// CPU seconds this process has used: unlike wall-clock time, not inflated when other
/// processes share the cores.
func processCPUTime() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

@Sendable func request(_ n: Int) -> (FeedRequest, String) {
    let phone = PhoneRequest(n, users: userCount)
    return (phone.feed(sort: .relevance), Seeder.userId(phone.viewer))
}

func run(
    _ label: String, queries: Int, warmingUpOn warmUp: Range<Int> = 0..<100, _ body: @escaping @Sendable (Int) async throws -> Void
) async throws {
    for n in warmUp { try await body(n) }  // warm up caches and connections
    let started = clock.now
    let cpuStarted = processCPUTime()
    let samples = try await withThrowingTaskGroup(of: [(wall: Double, cpu: Double)].self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                var own: [(wall: Double, cpu: Double)] = []
                for n in stride(from: worker, to: queries, by: concurrency) {
                    let cpu = processCPUTime()
                    let wall = try await clock.measure { try await body(n) }
                    own.append((milliseconds(wall), (processCPUTime() - cpu) * 1000))
                }
                return own
            }
        }
        return try await group.reduce(into: []) { $0 += $1 }
    }
    let elapsed = milliseconds(clock.now - started) / 1000
    let cpuTotal = processCPUTime() - cpuStarted
    func percentiles(_ values: [Double]) -> String {
        let sorted = values.sorted()
        func at(_ p: Double) -> String { String(format: "%.2f", sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) }
        return "p50 \(at(0.5)) ms, p90 \(at(0.9)) ms, p99 \(at(0.99)) ms, max \(at(1))"
    }
    print("\(label): \(queries) queries, concurrency \(concurrency)")
    print("  wall-clock: \(percentiles(samples.map(\.wall))); \(String(format: "%.0f", Double(queries) / elapsed)) queries/s")
    if concurrency == 1 { print("  CPU time:   \(percentiles(samples.map(\.cpu)))") }
    print("  CPU per query: \(String(format: "%.2f", cpuTotal * 1000 / Double(queries))) ms, so one core serves about \(String(format: "%.0f", Double(queries) / cpuTotal)) queries/s")
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
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
// Second pages: each follows a cursor once, taken beforehand, so each sorts its list's
// tail (the warm-up follows the first 100 too). At most 1,000: the 32 MB of fresh lists
// hold about 1,650, and an evicted cursor would answer 410.
let secondPageCount = min(queryCount, 1000)
var cursors: [String] = []
for n in 0..<secondPageCount {
    let (feed, viewer) = request(n)
    cursors.append(try await service.feed(feed, viewer: viewer).nextCursor ?? "")
}
try await run("nearby + relevance, second page", queries: secondPageCount) { [cursors] n in
    var (feed, viewer) = request(n)
    feed.cursor = cursors[n]
    _ = try await service.feed(feed, viewer: viewer)
}
// Fifth pages: each reaches the end of the five pages its first page ranked, so each ranks
// its request again, 1,000 deep (`MeetingService.firstDepth`). The warm-up follows cursors of
// its own: a list ranked deeper once is not ranked again.
let fifthPageCount = min(queryCount, 500)
var fifthCursors: [String] = []
for n in 0..<(fifthPageCount + 100) {
    var (feed, viewer) = request(n)
    for _ in 0..<4 { feed.cursor = try await service.feed(feed, viewer: viewer).nextCursor }
    fifthCursors.append(feed.cursor ?? "")
}
try await run("nearby + relevance, fifth page", queries: fifthPageCount, warmingUpOn: fifthPageCount..<(fifthPageCount + 100)) {
    [fifthCursors] n in
    var (feed, viewer) = request(n)
    feed.cursor = fifthCursors[n]
    _ = try await service.feed(feed, viewer: viewer)
}
