import Hummingbird
import MeetCore

/// `GET /places/search` and `GET /places/reverse`: the configured geocoder, for signed-in
/// users.
func addPlaceRoutes(to api: RouterGroup<AppRequestContext>, geocoder: any Geocoder) {
    api.get("places/search") { request, context in
        _ = try context.requireUser()
        var parameters = QueryParameters(request)
        // Coordinates out of range answer a code of their own, ahead of the query's other problems.
        let position = try position(&parameters, required: false)
        let limit = parameters.number("limit", 10, in: 1...GeocoderQuery.maxLimit)
        try parameters.check()
        let query = parameters.string("q") ?? ""
        // Ranking the gazetteer's towns takes milliseconds: on the pool, not the event loop
        // that carries this connection's neighbours (chat among them).
        let places = try await withTaskExecutorPreference(globalConcurrentExecutor) {
            try await geocoder.search(query, near: position, limit: limit)
        }
        return ItemList(items: places)
    }
    api.get("places/reverse") { request, context in
        _ = try context.requireUser()
        var parameters = QueryParameters(request)
        guard let position = try position(&parameters, required: true),
              let place = try await geocoder.reverse(lat: position.lat, lon: position.lon)
        else { throw MeetError("place.notFound", status: 404) }
        return PlaceBody(place: place)
    }
}

/// One place, encoded as the place itself.
struct PlaceBody: ResponseEncodable {
    var place: GeocodedPlace

    func encode(to encoder: any Encoder) throws {
        try place.encode(to: encoder)
    }
}

/// `lat` and `lon` from the query: both or (unless `required`) neither.
/// - Throws: 422 `request.invalidFields` naming a missing or unreadable one, or 422
///   `place.invalidCoordinates` for one out of range.
private func position(_ parameters: inout QueryParameters, required: Bool) throws -> Coordinate? {
    guard required || parameters.string("lat") != nil || parameters.string("lon") != nil else { return nil }
    let lat: Double? = parameters.number("lat"), lon: Double? = parameters.number("lon")
    try parameters.check()
    return try Coordinate(validatingLat: lat ?? .nan, lon: lon ?? .nan)
}
