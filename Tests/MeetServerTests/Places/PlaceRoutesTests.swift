import Foundation
import Testing

@Suite("Places over HTTP")
struct PlaceRoutesTests {
    /// `/api/v1/places/search?q=...` with the query percent-encoded.
    static func search(_ query: String, _ extra: String = "") -> String {
        "/api/v1/places/search?q=" + query.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + extra
    }

    @Test func searchFindsKyivInEnglishUkrainianRussianAndMisspelt() async throws {
        try await TestServer.run { server in
            let user = try await server.signedInUser()
            for query in ["Kyiv", "Київ", "Киев", "Kiyv"] {
                let reply = try await server.send(.get, Self.search(query), token: user.token)
                #expect(reply.status == 200, "\(query): \(reply.text)")
                let first = try #require((reply.json["items"] as? [[String: Any]])?.first, "\(query)")
                #expect(first["city"] as? String == "Kyiv", "\(query)")
                #expect(first["country"] as? String == "Ukraine")
                #expect(first["timeZone"] as? String == "Europe/Kyiv")
                #expect((first["lat"] as? Double).map { abs($0 - 50.45) < 0.05 } == true)
            }
        }
    }

    @Test func searchRanksByDistanceWhenGivenAPositionAndHonoursTheLimit() async throws {
        try await TestServer.run { server in
            let user = try await server.signedInUser()
            let reply = try await server.send(.get, Self.search("Paris", "&lat=33.6&lon=-95.5&limit=2"), token: user.token)
            let places = try #require(reply.json["items"] as? [[String: Any]])
            #expect(places.count == 2)
            #expect(places.first?["countryCode"] as? String == "US")
            #expect(places.first?["region"] as? String == "Texas")
            #expect((places.first?["distanceKm"] as? Double).map { $0 < 20 } == true)
        }
    }

    @Test func reverseNamesThePositionOrSaysNothingIsThere() async throws {
        try await TestServer.run { server in
            let user = try await server.signedInUser()
            let kyiv = try await server.send(.get, "/api/v1/places/reverse?lat=50.4501&lon=30.5234", token: user.token)
            #expect(kyiv.status == 200)
            #expect(kyiv.string("city") == "Kyiv" && kyiv.string("region") == "Kyiv City")
            #expect(kyiv.string("timeZone") == "Europe/Kyiv")
            let sea = try await server.send(.get, "/api/v1/places/reverse?lat=0&lon=-140", token: user.token)
            #expect(sea.status == 404 && sea.string("code") == "place.notFound")
        }
    }

    @Test func badParametersAreRefusedFieldByField() async throws {
        try await TestServer.run { server in
            let user = try await server.signedInUser()
            let cases: [(String, Int, String, String, String)] = [
                ("/api/v1/places/search?q=", 422, "place.invalidQuery", "q", "field.required"),
                (Self.search("Kyiv", "&limit=0"), 422, "request.invalidFields", "limit", "field.outOfRange"),
                (Self.search("Kyiv", "&limit=many"), 422, "request.invalidFields", "limit", "field.wrongType"),
                (Self.search("Kyiv", "&limit=0&lat=95&lon=30"), 422, "place.invalidCoordinates", "lat", "field.outOfRange"),
                (Self.search("Kyiv", "&lat=50"), 422, "request.invalidFields", "lon", "field.required"),
                (Self.search("Kyiv", "&lat=north&lon=30"), 422, "request.invalidFields", "lat", "field.wrongType"),
                ("/api/v1/places/reverse?lat=95&lon=30", 422, "place.invalidCoordinates", "lat", "field.outOfRange"),
                ("/api/v1/places/reverse?lon=30", 422, "request.invalidFields", "lat", "field.required"),
            ]
            for (path, status, code, field, fieldCode) in cases {
                let reply = try await server.send(.get, path, token: user.token)
                #expect(reply.status == status, "\(path)")
                #expect(reply.string("code") == code, "\(path): \(reply.text)")
                let errors = reply.json["errors"] as? [[String: Any]]
                #expect(errors?.first?["field"] as? String == field, "\(path)")
                #expect(errors?.first?["code"] as? String == fieldCode, "\(path)")
            }
        }
    }

    @Test func placesNeedASignedInUser() async throws {
        try await TestServer.run { server in
            let search = try await server.send(.get, Self.search("Kyiv"))
            let reverse = try await server.send(.get, "/api/v1/places/reverse?lat=50&lon=30")
            #expect(search.status == 401 && reverse.status == 401)
        }
    }
}
