import Hummingbird
import MeetCore

/// `GET /places/search` and `GET /places/reverse`: the configured geocoder, for signed-in
/// users.
func addPlaceRoutes(to api: RouterGroup<AppRequestContext>, geocoder: any Geocoder) {
    api.get("places/search") { request, context in
        _ = try context.requireUser()
        let parameters = request.uri.queryParameters
        let limit = try QueryParameters.integer(parameters, "limit", in: 1...GeocoderQuery.maxLimit) ?? 10
        let position = try QueryParameters.position(parameters, required: false)
        let places = try await geocoder.search(parameters["q"].map(String.init) ?? "", near: position, limit: limit)
        return PlacesBody(places: places)
    }
    api.get("places/reverse") { request, context in
        _ = try context.requireUser()
        guard let position = try QueryParameters.position(request.uri.queryParameters, required: true),
              let place = try await geocoder.reverse(lat: position.lat, lon: position.lon)
        else { throw MeetError("places.notFound", status: 404) }
        return PlaceBody(place: place)
    }
}

struct PlacesBody: ResponseEncodable {
    var places: [GeocodedPlace]
}

/// One place, encoded as the place itself.
struct PlaceBody: ResponseEncodable {
    var place: GeocodedPlace

    func encode(to encoder: any Encoder) throws {
        try place.encode(to: encoder)
    }
}

/// Reading numbers out of a query string, with a field problem for each bad one.
enum QueryParameters {
    /// The integer `name`, if given.
    /// - Throws: 422 `request.invalidFields` when it is not an integer within `range`.
    static func integer(_ parameters: Parameters, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = parameters[name[...]] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw MeetError.invalidField(name, "field.outOfRange",
                                         arguments: ["min": String(range.lowerBound), "max": String(range.upperBound)])
        }
        return value
    }

    /// `lat` and `lon`, both or neither (unless `required`).
    /// - Throws: 422 naming the missing or unreadable one, or `places.invalidCoordinate`.
    static func position(_ parameters: Parameters, required: Bool) throws -> Coordinate? {
        let lat = parameters["lat"], lon = parameters["lon"]
        if lat == nil && lon == nil && !required { return nil }
        var problems: [MeetError.FieldProblem] = []
        for (name, text) in [("lat", lat), ("lon", lon)] {
            if text == nil {
                problems.append(.init(field: name, code: "field.required"))
            } else if Double(text!) == nil {
                problems.append(.init(field: name, code: "field.invalid"))
            }
        }
        guard problems.isEmpty, let lat = lat.flatMap({ Double($0) }), let lon = lon.flatMap({ Double($0) }) else {
            throw MeetError.invalidFields(problems)
        }
        return try Coordinate(validatingLat: lat, lon: lon)
    }
}
