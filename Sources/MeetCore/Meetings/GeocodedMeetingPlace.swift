extension MeetingService {
    /// A meeting service whose places come from `geocoder`: words are searched and the best
    /// match taken; a point keeps the coordinates the organizer picked and takes its name,
    /// city, country and time zone from the nearest known place.
    public init(database: AppDatabase, geocoder: some Geocoder) {
        self.init(database: database) { query in
            switch query {
            case .text(let words):
                return try await geocoder.search(words, near: nil, limit: 1).first.map { Place($0) }
            case .point(let lat, let lon):
                return try await geocoder.reverse(lat: lat, lon: lon).map { Place($0, lat: lat, lon: lon) }
            }
        }
    }
}

extension Place {
    /// The geocoded place, at `lat`/`lon` when given (the point the organizer picked).
    init(_ geocoded: GeocodedPlace, lat: Double? = nil, lon: Double? = nil) {
        self.init(
            name: geocoded.name, address: geocoded.address ?? "", city: geocoded.city ?? "",
            country: geocoded.country ?? "", lat: lat ?? geocoded.lat, lon: lon ?? geocoded.lon,
            timeZone: geocoded.timeZone ?? "UTC")
    }
}
