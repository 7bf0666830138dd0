import Foundation
import Hummingbird
import MeetCore

/// `PUT /me/profile`: the whole profile; the lists and text fields may be left out (empty).
struct ProfileRequest: Decodable {
    var displayName: String
    var bio: String?
    var birthDate: String?
    var city: String?
    var photoId: String?
    var activityIds: [String]?
    var languages: [String]?
}

/// A profile as JSON: its owner sees the birth date, others the age in its place.
struct ProfileBody: ResponseEncodable {
    var id: String
    var displayName: String
    var bio: String
    var birthDate: String?
    var age: Int?
    var city: String?
    var photoId: String?
    var activityIds: [String]
    var languages: [String]
    /// Only on a friend's own profile page, unless they hide their presence.
    var lastSeenAt: Date?

    init(_ profile: Profile, shownToOwner: Bool, today: Date, lastSeenAt: Date? = nil) {
        id = profile.userId
        displayName = profile.displayName
        bio = profile.bio
        birthDate = shownToOwner ? profile.birthDate : nil
        age = shownToOwner ? nil : profile.age(on: today)
        city = profile.city
        photoId = profile.photoId
        activityIds = profile.activityIds
        languages = profile.languages
        self.lastSeenAt = lastSeenAt
    }
}

/// `PUT /me/location`.
struct LocationRequest: Decodable {
    var lat: Double
    var lon: Double
    var share: Bool?
}

struct LocationBody: ResponseEncodable {
    var lat: Double
    var lon: Double
    var share: Bool
    var updatedAt: Date

    init(_ location: LocationService.SharedLocation) {
        lat = location.lat
        lon = location.lon
        share = location.share
        updatedAt = location.updatedAt
    }
}

struct NeighbourBody: Encodable {
    var user: ProfileBody
    var distanceKm: Double
}
