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
    /// Reads the columns by name, without `Codable`'s decoder: every feed page decodes its
    /// meetings here, and the decoder was a quarter of a page's cost. The names are spelled in
    /// lower case because GRDB matches them case-insensitively through a table of lowercased
    /// names: a camel-case name misses it and is lowercased (a new String) for a second
    /// look-up, 27 times a row (a third of this decoding's time by perf, issue 21).
    init(row: Row) throws {
        func date(_ column: String) -> Date { Date(timeIntervalSince1970: row[column]) }
        func optionalDate(_ column: String) -> Date? { (row[column] as Double?).map(Date.init(timeIntervalSince1970:)) }
        number = row["number"]
        id = row["id"]
        organizerId = row["organizerid"]
        title = row["title"]
        description = row["description"]
        visibility = try row.decode(Meeting.Visibility.self, forColumn: "visibility")
        startsAt = date("startsat")
        endsAt = optionalDate("endsat")
        online = row["online"]
        placeName = row["placename"]
        placeAddress = row["placeaddress"]
        placeCity = row["placecity"]
        placeCountry = row["placecountry"]
        lat = row["lat"]
        lon = row["lon"]
        timeZone = row["timezone"]
        priceMinor = row["priceminor"]
        currency = row["currency"]
        maxParticipants = row["maxparticipants"]
        memberCount = row["membercount"]
        membersMayInvite = row["membersmayinvite"]
        photoId = row["photoid"]
        cancelledAt = optionalDate("cancelledat")
        createdAt = date("createdat")
        updatedAt = date("updatedat")
        revision = row["revision"]
    }
}

extension Meeting.Visibility: DatabaseValueConvertible {}
