import Foundation
import GRDB
@testable import MeetCore

/// A fresh database file with a few users, and a meeting service whose clock and geocoder
/// the test controls.
struct MeetingFixture {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
    static let kyiv = Place(name: "Maidan", address: "Khreshchatyk 1", city: "Kyiv", country: "Ukraine", lat: 50.45, lon: 30.52, timeZone: "Europe/Kyiv")

    let database: AppDatabase
    let service: MeetingService
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder("meetcore-meetings-")
        database = try AppDatabase(path: folder.url.appendingPathComponent("db.sqlite").path)
        service = MeetingService(database: database, resolvePlace: Self.resolve, now: { Self.now })
    }

    /// Knows one city by name; every point is "somewhere in Kyiv's time zone".
    @Sendable static func resolve(_ query: PlaceQuery) async throws -> Place? {
        switch query {
        case .text(let text):
            return text == "Kyiv" ? kyiv : nil
        case .point(let lat, let lon):
            return Place(name: "Spot", address: "", city: "Kyiv", country: "Ukraine", lat: lat, lon: lon, timeZone: "Europe/Kyiv")
        }
    }

    /// Creates confirmed users with these ids (and display names).
    func users(_ ids: String...) throws {
        try users(ids)
    }

    /// ann and bob, and ann's meeting `title`, which bob joined; returns its id.
    func annsMeetingWithBob(title: String) async throws -> String {
        try users("ann", "bob")
        let meeting = try await service.create(Self.draft(title: title), by: "ann").id
        _ = try await service.join(meeting, by: "bob")
        return meeting
    }

    func users(_ ids: [String]) throws {
        try database.writer.write { db in
            for id in ids {
                try db.execute(
                    sql: """
                        INSERT INTO user (id, email, displayName, locale, passwordHash, emailConfirmedAt, createdAt)
                        VALUES (?, ? || '@example.org', ?, 'en', '', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)
                        """,
                    arguments: [id, id, id])
            }
        }
    }

    static func time(hours: Double) -> String {
        (now + hours * 3600).formatted(.iso8601)
    }

    /// A valid draft for a public meeting in Kyiv tomorrow.
    static func draft(
        title: String = "Evening run", visibility: String = "public", in hours: Double = 24,
        place: PlaceInput? = PlaceInput(lat: 50.45, lon: 30.52), capacity: Int? = nil,
        activityIds: [String]? = nil, inviteeIds: [String]? = nil, price: Price? = nil, online: Bool? = nil
    ) -> MeetingDraft {
        MeetingDraft(
            title: title, visibility: visibility, startsAt: time(hours: hours), place: place, price: price,
            maxParticipants: capacity, activityIds: activityIds, inviteeIds: inviteeIds, online: online)
    }

    func events(_ kind: DomainEvent.Kind) throws -> [MeetingEventPayload] {
        try database.reader.read { db in
            try DomainEvents.pending(for: "test", limit: 10_000, in: db)
                .filter { $0.kind == kind }
                .map { try JSONDecoder.iso.decode(MeetingEventPayload.self, from: $0.payload) }
        }
    }
}

extension JSONDecoder {
    static let iso: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}

/// The field problems of a `meeting.invalid` refusal, as "field:code".
func fieldProblems(_ body: () async throws -> Void) async -> [String] {
    do {
        try await body()
        return []
    } catch let error as MeetError {
        return error.fieldProblems.map { "\($0.field):\($0.code)" }
    } catch {
        return ["unexpected \(error)"]
    }
}

/// The code of the `MeetError` the body throws, or nil.
func errorCode(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch let error as MeetError {
        return error.code
    } catch {
        return "unexpected \(error)"
    }
}
