import Foundation
import GRDB

/// A row of `meeting`. Times are stored as seconds since 1970 so that SQL can compare them.
struct MeetingRecord: Codable, FetchableRecord, PersistableRecord, EpochTimes, Sendable {
    static let databaseTableName = "meeting"

    var number: Int64?
    var id: String
    var organizerId: String
    var title: String
    var description: String
    var visibility: Meeting.Visibility
    var startsAt: Date
    var endsAt: Date?
    var online: Bool
    var placeName: String?
    var placeAddress: String?
    var placeCity: String?
    var placeCountry: String?
    var lat: Double?
    var lon: Double?
    var timeZone: String
    /// The price in the currency's minor unit (cents), `nil` when free.
    var priceMinor: Int64?
    var currency: String?
    var maxParticipants: Int?
    var memberCount: Int
    var membersMayInvite: Bool
    var photoId: String?
    var cancelledAt: Date?
    var createdAt: Date
    var updatedAt: Date
    var revision: Int

    mutating func didInsert(_ inserted: InsertionSuccess) {
        number = inserted.rowID
    }

    var isCancelled: Bool { cancelledAt != nil }

    var place: Place? {
        get {
            guard let lat, let lon else { return nil }
            return Place(
                name: placeName ?? "", address: placeAddress ?? "", city: placeCity ?? "",
                country: placeCountry ?? "", lat: lat, lon: lon, timeZone: timeZone)
        }
        set {
            placeName = newValue?.name
            placeAddress = newValue?.address
            placeCity = newValue?.city
            placeCountry = newValue?.country
            lat = newValue?.lat
            lon = newValue?.lon
            timeZone = newValue?.timeZone ?? "UTC"
        }
    }

    var price: Price? {
        get {
            guard let priceMinor, let currency, let code = Currency(code: currency) else { return nil }
            return Price(amount: code.amount(minor: priceMinor), currency: currency)
        }
        set {
            // Validation has already refused prices the currency cannot express.
            if let newValue, let code = Currency(code: newValue.currency), let minor = code.minor(newValue.amount), minor > 0 {
                priceMinor = minor
                currency = code.code
            } else {
                priceMinor = nil
                currency = nil
            }
        }
    }

    /// The meeting as clients see it.
    func meeting(activityIds: [String], distanceKm: Double? = nil) -> Meeting {
        Meeting(
            id: id, organizerId: organizerId, title: title, description: description, visibility: visibility,
            status: isCancelled ? .cancelled : .scheduled, startsAt: startsAt, endsAt: endsAt, online: online,
            place: place, price: price, maxParticipants: maxParticipants, memberCount: memberCount,
            membersMayInvite: membersMayInvite, activityIds: activityIds, photoId: photoId,
            createdAt: createdAt, updatedAt: updatedAt, revision: revision, distanceKm: distanceKm)
    }
}

extension MeetingRecord {
    /// The columns `init(row:)` reads, in the order it reads them (the fields' order).
    static let columnNames = [
        "number", "id", "organizerId", "title", "description", "visibility", "startsAt", "endsAt", "online",
        "placeName", "placeAddress", "placeCity", "placeCountry", "lat", "lon", "timeZone", "priceMinor",
        "currency", "maxParticipants", "memberCount", "membersMayInvite", "photoId", "cancelledAt",
        "createdAt", "updatedAt", "revision",
    ]

    /// What the query interface selects (`MeetingRecord.filter(...)`): `columnNames`, in order.
    static var databaseSelection: [any SQLSelectable] { columnNames.map { Column($0) } }

    /// `columnNames` as an SQL select list, each qualified by the table's name: raw SQL that
    /// reads records selects this instead of `*`.
    static let columnList = columnNames.map { "meeting.\($0)" }.joined(separator: ", ")

    /// Reads the columns by position, in `columnNames` order (the query interface and
    /// `columnList` select them so): every feed page decodes its meetings here, and a
    /// look-up by name was a dictionary probe per column per row (issue 21).
    init(row: Row) throws {
        assert(row.columnNames.map { $0.lowercased() } == Self.columnNames.map { $0.lowercased() },
               "a meeting row must be selected with MeetingRecord.columnList")
        func date(_ index: Int) -> Date { Date(timeIntervalSince1970: row[index]) }
        func optionalDate(_ index: Int) -> Date? { (row[index] as Double?).map(Date.init(timeIntervalSince1970:)) }
        number = row[0]
        id = row[1]
        organizerId = row[2]
        title = row[3]
        description = row[4]
        visibility = try row.decode(Meeting.Visibility.self, atIndex: 5)
        startsAt = date(6)
        endsAt = optionalDate(7)
        online = row[8]
        placeName = row[9]
        placeAddress = row[10]
        placeCity = row[11]
        placeCountry = row[12]
        lat = row[13]
        lon = row[14]
        timeZone = row[15]
        priceMinor = row[16]
        currency = row[17]
        maxParticipants = row[18]
        memberCount = row[19]
        membersMayInvite = row[20]
        photoId = row[21]
        cancelledAt = optionalDate(22)
        createdAt = date(23)
        updatedAt = date(24)
        revision = row[25]
    }
}

extension Meeting.Visibility: DatabaseValueConvertible {}
