import Foundation
import MeetCore

/// One feed request as a phone would send it: a user somewhere in a city, 25 km around,
/// the first page of 20. Request `number` is the same in-process and over HTTP, so the two
/// benchmarks ask the same questions.
struct PhoneRequest {
    var lat: Double
    var lon: Double
    /// Which seeded user asks (`Seeder.userId`).
    var viewer: Int

    init(_ number: Int, users: Int) {
        var random = SplitMix(state: UInt64(number) &* 7919)
        let city = Seeder.cities[random.below(Seeder.cities.count)]
        lat = city.lat + random.gaussian() * 0.05
        lon = city.lon + random.gaussian() * 0.05
        viewer = random.below(users)
    }

    func feed(sort: FeedRequest.Sort) -> FeedRequest {
        FeedRequest(lat: lat, lon: lon, radiusKm: 25, sort: sort, limit: 20)
    }

    /// The same question as `GET /meetings` asks it.
    func target(sort: FeedRequest.Sort) -> String {
        String(format: "/api/v1/meetings?lat=%.5f&lon=%.5f&radiusKm=25&sort=%@&limit=20", lat, lon, sort.rawValue)
    }
}
