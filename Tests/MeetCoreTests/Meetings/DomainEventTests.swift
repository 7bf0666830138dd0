import Foundation
import GRDB
import Testing
@testable import MeetCore

@Suite struct DomainEventTests {
    struct Note: Codable { var text: String }

    @Test func eventsExistExactlyWhenTheirTransactionCommits() throws {
        let fixture = try MeetingFixture()
        try fixture.database.writer.write { db in
            try DomainEvent(.init(rawValue: "test.kept"), payload: Note(text: "a")).record(in: db, at: Date())
        }
        struct Rollback: Error {}
        #expect(throws: Rollback.self) {
            try fixture.database.writer.write { db in
                try DomainEvent(.init(rawValue: "test.lost"), payload: Note(text: "b")).record(in: db, at: Date())
                throw Rollback()
            }
        }
        let kinds = try fixture.database.reader.read { db in try DomainEvents.pending(for: "mail", in: db).map(\.kind.rawValue) }
        #expect(kinds == ["test.kept"])
    }

    @Test func eachConsumerReadsEveryEventOnceInOrder() throws {
        let fixture = try MeetingFixture()
        try fixture.database.writer.write { db in
            for text in ["1", "2", "3"] { try DomainEvent(.init(rawValue: "test.n"), payload: Note(text: text)).record(in: db, at: Date()) }
        }
        try fixture.database.writer.write { db in
            let first = try DomainEvents.pending(for: "push", limit: 2, in: db)
            #expect(first.map { String(decoding: $0.payload, as: UTF8.self) } == [#"{"text":"1"}"#, #"{"text":"2"}"#])
            try DomainEvents.markConsumed("push", through: first.last!.id, in: db)
            // Never backwards.
            try DomainEvents.markConsumed("push", through: first.first!.id, in: db)
            let rest = try DomainEvents.pending(for: "push", in: db)
            #expect(rest.count == 1 && rest[0].id > first.last!.id)
            #expect(try DomainEvents.pending(for: "mail", in: db).count == 3)
        }
    }
}
