import Foundation
import Hummingbird
import HummingbirdTesting
import MeetCore
import Synchronization
import Testing
@testable import MeetServer

/// A small HTTP server that answers like Nominatim's `format=jsonv2`, and remembers what it
/// was asked.
final class FakeNominatim: Sendable {
    let requests = Mutex<[(path: String, query: [String: String], userAgent: String?)]>([])

    static let khreshchatyk = """
        {"place_id":1,"lat":"50.4481","lon":"30.5225","category":"highway","type":"residential",
         "name":"Khreshchatyk","display_name":"22, Khreshchatyk, Kyiv, 01001, Ukraine",
         "address":{"house_number":"22","road":"Khreshchatyk","city":"Kyiv","state":"Kyiv",
                    "postcode":"01001","country":"Ukraine","country_code":"ua"}}
        """

    /// Runs `body` with the fake listening on a free loopback port.
    func run(_ body: @Sendable (_ baseURL: String) async throws -> Void) async throws {
        let router = Router()
        router.get("{endpoint}") { request, context -> Response in
            var query: [String: String] = [:]
            for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
            let endpoint = context.parameters.get("endpoint") ?? ""
            self.requests.withLock { $0.append((endpoint, query, request.headers[.userAgent])) }
            let json: String
            switch (endpoint, query["q"], query["lat"]) {
            case ("search", "fail", _): return Response(status: .internalServerError)
            case ("search", _, _): json = "[\(Self.khreshchatyk)]"
            case ("reverse", _, "0.0"): json = #"{"error":"Unable to geocode"}"#
            case ("reverse", _, _): json = Self.khreshchatyk
            default: return Response(status: .notFound)
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(try #require(client.port))")
        }
    }
}

@Suite struct NominatimGeocoderTests {
    let timeZones = BundledGazetteer()

    @Test func searchAsksForJSONv2WithAddressesAndMapsTheAnswer() async throws {
        let fake = FakeNominatim()
        try await fake.run { baseURL in
            let geocoder = NominatimGeocoder(baseURL: baseURL + "/", timeZones: timeZones)
            let places = try await geocoder.search("Khreshchatyk 22, Kyiv", near: Coordinate(lat: 50.45, lon: 30.52), limit: 3)
            #expect(places == [GeocodedPlace(
                name: "Khreshchatyk", address: "Khreshchatyk 22", city: "Kyiv", region: "Kyiv", country: "Ukraine",
                countryCode: "UA", lat: 50.4481, lon: 30.5225, timeZone: "Europe/Kyiv", distanceKm: 0.3)])
        }
        let request = try #require(fake.requests.withLock { $0.first })
        #expect(request.path == "search")
        #expect(request.query["q"] == "Khreshchatyk 22, Kyiv")
        #expect(request.query["format"] == "jsonv2")
        #expect(request.query["addressdetails"] == "1")
        #expect(request.query["limit"] == "3")
        #expect(request.query["viewbox"] == "29.5200,51.4500,31.5200,49.4500")
        #expect(request.userAgent?.hasPrefix("meetupd") == true)
    }

    @Test func reverseMapsAPlaceAndNothingFound() async throws {
        let fake = FakeNominatim()
        try await fake.run { baseURL in
            let geocoder = NominatimGeocoder(baseURL: baseURL, timeZones: timeZones)
            let place = try #require(try await geocoder.reverse(lat: 50.4481, lon: 30.5225))
            #expect(place.address == "Khreshchatyk 22")
            #expect(place.timeZone == "Europe/Kyiv")
            #expect(try await geocoder.reverse(lat: 0, lon: 0) == nil)
        }
        #expect(fake.requests.withLock { $0.map(\.path) } == ["reverse", "reverse"])
        #expect(fake.requests.withLock { $0.first?.query["lat"] } == "50.4481")
    }

    @Test func failuresUpstreamBecomeGeocoderUnavailable() async throws {
        try await FakeNominatim().run { baseURL in
            let geocoder = NominatimGeocoder(baseURL: baseURL, timeZones: timeZones)
            await #expect(throws: NominatimGeocoder.unavailable) { try await geocoder.search("fail") }
            let nothingThere = NominatimGeocoder(baseURL: baseURL + "/no-such-prefix", timeZones: timeZones)
            await #expect(throws: NominatimGeocoder.unavailable) { try await nothingThere.search("Kyiv") }
        }
    }

    @Test func badInputIsRefusedBeforeAskingUpstream() async throws {
        let fake = FakeNominatim()
        try await fake.run { baseURL in
            let geocoder = NominatimGeocoder(baseURL: baseURL, timeZones: timeZones)
            await #expect(throws: MeetError.self) { try await geocoder.search("  ") }
            await #expect(throws: MeetError.self) { try await geocoder.reverse(lat: 100, lon: 0) }
        }
        #expect(fake.requests.withLock { $0.isEmpty })
    }
}
