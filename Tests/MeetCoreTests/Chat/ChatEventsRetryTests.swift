import Foundation
import GRDB
import Logging
import Synchronization
import Testing
@testable import MeetCore

/// A post's batch reads the domain events first when this process recorded one; if that read
/// fails (a trigger stands in for an I/O error), the post still goes, and the event reader is
/// woken to try the events again until it succeeds, with no later event to wake it.
@Suite struct ChatEventsRetryTests {
    /// The kinds of the system messages stored, once there is one (or none after 5 s).
    static func systemKinds(in fixture: MeetingFixture) async throws -> [String] {
        var kinds: [String] = []
        for _ in 0..<100 where kinds.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            kinds = try await fixture.database.reader.read { db in
                try String.fetchAll(db, sql: "SELECT system ->> '$.kind' FROM chatMessage WHERE type = 'system' ORDER BY seq")
            }
        }
        return kinds
    }

    @Test func aBatchThatFailedToReadTheEventsWakesTheReader() async throws {
        let fixture = try MeetingFixture()
        let chat = ChatService(database: fixture.database, now: { MeetingFixture.now })
        try await fixture.database.writer.write { db in
            try db.execute(sql: """
                CREATE TRIGGER chatFault BEFORE INSERT ON chatMessage WHEN NEW.type = 'system'
                BEGIN SELECT RAISE(ABORT, 'disk trouble'); END
                """)
        }
        let meeting = try await fixture.annsMeetingWithBob(title: "Open")  // records bob's join
        _ = try await chat.post(ChatDraft(text: "hi", clientMessageId: "m0"), to: meeting, by: "bob")
        try await fixture.database.writer.write { db in try db.execute(sql: "DROP TRIGGER chatFault") }

        #expect(try await Self.systemKinds(in: fixture) == ["memberJoined"])
    }

    /// While the events cannot be read, every failed pass is logged for the operator (nobody
    /// waits for its answer), and the reader keeps trying until one succeeds.
    @Test func aFailingPassIsLoggedAndTriedAgain() async throws {
        let fixture = try MeetingFixture()
        let log = RecordedLog()
        let chat = ChatService(database: fixture.database, now: { MeetingFixture.now },
                               logger: Logger(label: "test") { _ in log.handler })
        try await fixture.database.writer.write { db in
            try db.execute(sql: """
                CREATE TRIGGER chatFault BEFORE INSERT ON chatMessage WHEN NEW.type = 'system'
                BEGIN SELECT RAISE(ABORT, 'disk trouble'); END
                """)
        }
        let reading = Task { try await chat.followEvents() }
        defer { reading.cancel() }
        _ = try await fixture.annsMeetingWithBob(title: "Open")
        for _ in 0..<100 where log.warnings.count < 2 {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(log.warnings.count >= 2 && log.warnings.allSatisfy { $0.contains("disk trouble") }, "\(log.warnings)")
        try await fixture.database.writer.write { db in try db.execute(sql: "DROP TRIGGER chatFault") }
        #expect(try await Self.systemKinds(in: fixture) == ["memberJoined"])
    }
}

/// Keeps the warnings logged through its handler, each as its message and metadata.
private final class RecordedLog: Sendable {
    private let recorded = Mutex<[String]>([])

    var warnings: [String] { recorded.withLock { $0 } }
    var handler: Handler { Handler(log: self) }

    struct Handler: LogHandler {
        let log: RecordedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
                 file: String, function: String, line: UInt) {
            guard level == .warning else { return }
            log.recorded.withLock { $0.append("\(message) \(metadata ?? [:])") }
        }
    }
}
