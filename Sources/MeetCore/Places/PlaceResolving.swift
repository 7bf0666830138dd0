extension Geocoder {
    /// A meeting's place for what its organizer gave: the point picked on the map, named by
    /// reverse geocoding, or the best match of the words typed. `nil` when nothing is known
    /// there. This is the ``PlaceResolver`` the server hands to ``MeetingService``.
    public func place(for query: PlaceQuery) async throws -> Place? {
        switch query {
        case .point(let lat, let lon):
            guard let found = try await reverse(lat: lat, lon: lon) else { return nil }
            // The organizer's point stays; the geocoder only names it.
            return Place(found, lat: lat, lon: lon)
        case .text(let text):
            guard let found = try await search(text, near: nil, limit: 1).first else { return nil }
            return Place(found, lat: found.lat, lon: found.lon)
        }
    }
}

extension Place {
    /// `found`'s names at (`lat`, `lon`); a place without a known time zone is shown in UTC.
    init(_ found: GeocodedPlace, lat: Double, lon: Double) {
        self.init(
            name: found.name, address: found.address ?? "", city: found.city ?? "", country: found.country ?? "",
            lat: lat, lon: lon, timeZone: found.timeZone ?? "UTC")
    }
}
