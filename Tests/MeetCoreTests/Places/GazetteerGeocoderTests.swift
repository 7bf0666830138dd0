import Testing
@testable import MeetCore

@Suite struct GazetteerGeocoderTests {
    /// Loaded once for all tests: reading the gazetteer takes a moment in a debug build.
    let geocoder = BundledGazetteer()

    @Test(arguments: ["Kyiv", "Київ", "Киев", "Kiyv", "kyiv ", "KYÏV", "Kiev", "Kyjiv"])
    func findsKyivByAnyOfItsNames(query: String) async throws {
        let first = try #require(try await geocoder.search(query).first)
        #expect(first.city == "Kyiv")
        #expect(first.country == "Ukraine")
        #expect(first.countryCode == "UA")
        #expect(first.timeZone == "Europe/Kyiv")
        #expect(abs(first.lat - 50.45) < 0.05 && abs(first.lon - 30.52) < 0.05)
    }

    @Test(arguments: [("Львів", "Lviv"), ("Одеса", "Odesa"), ("Харків", "Kharkiv"), ("Ivano Frankivsk", "Ivano-Frankivsk"),
                      ("München", "Munich"), ("Munchen", "Munich"), ("Londn", "London"), ("東京", "Tokyo")])
    func findsTownsInOtherScriptsAndWithTypos(query: String, city: String) async throws {
        let first = try #require(try await geocoder.search(query).first)
        #expect(first.city == city)
    }

    /// The gazetteer keeps names people type, not the codes GeoNames lists among them.
    @Test func initialsFindTheirTownButAirportCodesDoNot() async throws {
        #expect(try await geocoder.search("NYC").first?.name == "New York City")
        #expect(try await geocoder.search("HCMC").first?.name == "Ho Chi Minh City")
        #expect(try await geocoder.search("IEV").allSatisfy { $0.city != "Kyiv" })
    }

    @Test func aDistrictIsPlacedInItsCity() async throws {
        let pechersk = try #require(try await geocoder.search("Pechersk").first)
        #expect(pechersk.name == "Pechersk" && pechersk.city == "Kyiv")
        // Brovary, 20 km out, is a town of its own.
        let brovary = try #require(try await geocoder.search("Brovary").first)
        #expect(brovary.city == "Brovary")
        let suburb = try #require(try await geocoder.reverse(lat: 50.5113, lon: 30.7903))
        #expect(suburb.city == "Brovary")
    }

    @Test func prefixFindsTheTownBeingTyped() async throws {
        let first = try #require(try await geocoder.search("Kharki").first)
        #expect(first.city == "Kharkiv")
    }

    @Test func rankingPrefersTheBiggerTownUnlessAPositionIsGiven() async throws {
        let anywhere = try await geocoder.search("Paris")
        #expect(anywhere.first?.countryCode == "FR")
        #expect(anywhere.first?.distanceKm == nil)
        let nearTexas = try await geocoder.search("Paris", near: Coordinate(lat: 33.6, lon: -95.5))
        #expect(nearTexas.first?.countryCode == "US")
        #expect(nearTexas.first?.region == "Texas")
        #expect((nearTexas.first?.distanceKm ?? .infinity) < 20)
    }

    @Test func partsAfterTheTownNarrowItDown() async throws {
        let places = try await geocoder.search("Paris, Texas")
        #expect(places.first?.region == "Texas")
        let unknownQualifier = try await geocoder.search("Paris, Nowhereland")
        #expect(unknownQualifier.first?.countryCode == "FR")
    }

    @Test func partsBeforeTheTownAreTheAddress() async throws {
        let first = try #require(try await geocoder.search("Khreshchatyk 22, Kyiv").first)
        #expect(first.name == "Khreshchatyk 22")
        #expect(first.address == "Khreshchatyk 22")
        #expect(first.city == "Kyiv")
    }

    @Test func limitsAndNothingFound() async throws {
        #expect(try await geocoder.search("San", near: nil, limit: 3).count == 3)
        #expect(try await geocoder.search("Qqqqxxzz").isEmpty)
    }

    @Test(arguments: ["", "   ", String(repeating: "a", count: 201)])
    func refusesEmptyOrOverlongQueries(query: String) async throws {
        await #expect(throws: MeetError.self) { try await geocoder.search(query) }
        do {
            _ = try await geocoder.search(query)
        } catch let error as MeetError {
            #expect(error.code == "place.invalidQuery")
            #expect(error.status == 422)
        }
    }

    @Test func reverseFindsTheNearestTownWithItsRegionAndTimeZone() async throws {
        let place = try #require(try await geocoder.reverse(lat: 50.4501, lon: 30.5234))
        // The nearest entry is a district of Kyiv; its city is Kyiv.
        #expect(place.name == "Stare Misto")
        #expect(place.city == "Kyiv")
        #expect(place.region == "Kyiv City")
        #expect(place.country == "Ukraine")
        #expect(place.timeZone == "Europe/Kyiv")
        #expect((place.distanceKm ?? .infinity) < 2)
    }

    @Test func reverseWorksAcrossTheDateLine() async throws {
        // Suva, Fiji lies at 178.44° E; the point is just across the antimeridian from Taveuni.
        let suva = try #require(try await geocoder.reverse(lat: -18.14, lon: 178.44))
        #expect(suva.countryCode == "FJ")
        #expect(suva.timeZone == "Pacific/Fiji")
    }

    @Test func reverseFindsNothingInTheOpenSea() async throws {
        #expect(try await geocoder.reverse(lat: 0, lon: -140) == nil)
    }

    @Test(arguments: [(91.0, 0.0), (0.0, -180.5), (Double.nan, 0.0)])
    func reverseRefusesImpossiblePositions(lat: Double, lon: Double) async throws {
        await #expect(throws: MeetError("place.invalidCoordinates", status: 422, fieldProblems: [
            .init(field: lat.isFinite && abs(lat) <= 90 ? "lon" : "lat", code: "field.outOfRange"),
        ])) {
            try await geocoder.reverse(lat: lat, lon: lon)
        }
    }
}

@Suite struct PlaceResolvingTests {
    let geocoder = BundledGazetteer()

    @Test func aPickedPointKeepsItsCoordinatesAndGetsNames() async throws {
        let place = try #require(try await geocoder.place(for: .point(lat: 49.8419, lon: 24.0315)))
        #expect(place.city == "Lviv" && place.country == "Ukraine" && place.timeZone == "Europe/Kyiv")
        #expect(place.lat == 49.8419 && place.lon == 24.0315)
    }

    @Test func wordsTakeTheBestMatch() async throws {
        let place = try #require(try await geocoder.place(for: .text("Rynok Square 1, Львів")))
        #expect(place.name == "Rynok Square 1" && place.address == "Rynok Square 1" && place.city == "Lviv")
        #expect(try await geocoder.place(for: .point(lat: 0, lon: -140)) == nil)
        #expect(try await geocoder.place(for: .text("Qqqqxxzz")) == nil)
    }
}
