import Foundation
import GRDB
import Testing
@testable import MeetCore

@Suite struct LocationServiceTests {
    let fixture: ProfilesFixture

    init() throws {
        fixture = try ProfilesFixture()
    }

    /// Kyiv's Maidan and places at known distances from it.
    static let maidan = (lat: 50.4501, lon: 30.5234)

    @discardableResult
    func user(_ name: String, at position: (lat: Double, lon: Double), share: Bool? = true) async throws -> String {
        let id = try await fixture.addUser(name)
        _ = try await fixture.locations.update(id, lat: position.lat, lon: position.lon, share: share)
        return id
    }

    func nearby(_ viewer: String, radiusKm: Double, at position: (lat: Double, lon: Double) = maidan) async throws -> [String] {
        try await fixture.locations.nearby(lat: position.lat, lon: position.lon, radiusKm: radiusKm, seenBy: viewer, limit: 100)
            .map(\.profile.displayName)
    }

    @Test func findsSharersNearestFirstNeverTheCallerNorHiddenOnes() async throws {
        let viewer = try await user("Viewer", at: Self.maidan)
        try await user("Near", at: (50.4547, 30.5238))            // ~0.5 km north
        try await user("Farther", at: (50.4501, 30.6234))         // ~7 km east
        try await user("Brovary", at: (50.5110, 30.7909))         // ~20 km
        try await user("Hidden", at: (50.4502, 30.5235), share: false)
        try await user("Default", at: (50.4503, 30.5236), share: nil)
        #expect(try await nearby(viewer, radiusKm: 10) == ["Near", "Farther"])
        #expect(try await nearby(viewer, radiusKm: 25) == ["Near", "Farther", "Brovary"])

        let result = try await fixture.locations.nearby(lat: Self.maidan.lat, lon: Self.maidan.lon, radiusKm: 10, seenBy: viewer, limit: 1)
        #expect(result.count == 1 && result[0].distanceKm == 1, "within the first 1 km bucket")
    }

    @Test func sharingCanBeTurnedOffAndBackOnWithoutResendingTheSetting() async throws {
        let viewer = try await user("Viewer", at: Self.maidan, share: false)
        let olena = try await user("Olena", at: (50.4547, 30.5238))
        _ = try await fixture.locations.update(olena, lat: 50.4548, lon: 30.5238, share: false)
        #expect(try await nearby(viewer, radiusKm: 5).isEmpty)
        _ = try await fixture.locations.update(olena, lat: 50.4549, lon: 30.5238, share: true)
        let moved = try await fixture.locations.update(olena, lat: 50.4550, lon: 30.5238, share: nil)
        #expect(moved.share, "nil keeps the previous setting")
        #expect(try await nearby(viewer, radiusKm: 5) == ["Olena"])
    }

    @Test func unconfirmedAndBannedUsersStayHidden() async throws {
        let viewer = try await user("Viewer", at: Self.maidan, share: false)
        for (name, confirmed, banned) in [("Ghost", false, false), ("Spammer", true, true)] {
            let id = try await fixture.addUser(name, confirmed: confirmed, banned: banned)
            _ = try await fixture.locations.update(id, lat: Self.maidan.lat, lon: Self.maidan.lon, share: true)
        }
        #expect(try await nearby(viewer, radiusKm: 1).isEmpty)
    }

    @Test func blockedUsersAreHiddenBothWays() async throws {
        let viewer = try await user("Viewer", at: Self.maidan)
        let blocked = try await user("Blocked", at: (50.4547, 30.5238))
        let blocker = try await user("Blocker", at: (50.4548, 30.5238))
        try await user("Friendly", at: (50.4549, 30.5238))
        let friends = FriendService(database: fixture.database, now: Date.init)
        try await friends.block(blocked, by: viewer)
        try await friends.block(viewer, by: blocker)
        #expect(try await nearby(viewer, radiusKm: 5) == ["Friendly"])
        #expect(try await nearby(blocked, radiusKm: 5).contains("Viewer") == false)
        #expect(try await nearby(blocker, radiusKm: 5).contains("Viewer") == false)
        let search = try await fixture.profiles.searchUsers(matching: "", seenBy: viewer, after: nil, limit: 10)
        #expect(search.items.map(\.displayName) == ["Friendly", "Viewer"])
        for hidden in [blocked, blocker] {
            await #expect(throws: ProfileService.notFound) { try await fixture.profiles.profile(of: hidden, seenBy: viewer) }
        }
    }

    @Test func searchesAcrossTheAntimeridianAndNearThePoles() async throws {
        // The viewer searches around where they are.
        let viewer = try await user("Viewer", at: (-17.0, 179.99), share: false)
        try await user("Fiji east", at: (-17.0, 179.95))
        try await user("Fiji west", at: (-17.0, -179.95))
        #expect(try await nearby(viewer, radiusKm: 20, at: (-17.0, 179.99)) == ["Fiji east", "Fiji west"])
        _ = try await fixture.locations.update(viewer, lat: 89.99, lon: -170, share: false)
        try await user("Pole", at: (89.99, 10))
        #expect(try await nearby(viewer, radiusKm: 5, at: (89.99, -170)) == ["Pole"])
    }

    @Test func outOfRangeInputIsRefused() async throws {
        let viewer = try await fixture.addUser("Viewer")
        let position = try await #require(throws: MeetError.self) {
            try await fixture.locations.update(viewer, lat: 91, lon: -181, share: true)
        }
        #expect(position.code == "location.invalid" && position.fieldProblems.map(\.field) == ["lat", "lon"])
        let radius = try await #require(throws: MeetError.self) {
            try await fixture.locations.nearby(lat: 0, lon: 0, radiusKm: 500, seenBy: viewer, limit: 10)
        }
        #expect(radius.code == "request.invalidFields" && radius.fieldProblems.map(\.field) == ["radiusKm"])
    }

    /// The nearby search must go through the R*Tree, never scan every position.
    @Test func nearbyQueryUsesTheSpatialIndex() async throws {
        let box = GeoCircle(lat: Self.maidan.lat, lon: Self.maidan.lon, radiusKm: 10).boundingBoxes[0]
        let plan = try await fixture.database.reader.read { db in
            try Row.fetchAll(db, SQLRequest(literal: "EXPLAIN QUERY PLAN " + LocationService.sharedPositions(in: box, seenBy: "viewer")))
                .map { $0["detail"] as String }
        }
        #expect(plan.first?.hasPrefix("SCAN userLocationIndex VIRTUAL TABLE INDEX") == true, "\(plan)")
        #expect(plan.dropFirst().allSatisfy { !$0.hasPrefix("SCAN") }, "every other table is searched by key: \(plan)")
    }

    @Test func boundingBoxesCoverTheCircle() {
        let circle = GeoCircle(lat: 50, lon: 30, radiusKm: 100)
        let box = circle.boundingBoxes[0]
        #expect(circle.boundingBoxes.count == 1)
        #expect(circle.distanceKm(toLat: box.maxLat, lon: 30) >= 99.99)
        #expect(circle.distanceKm(toLat: 50, lon: box.maxLon) >= 100)
        #expect(GeoCircle(lat: 0, lon: 179.9, radiusKm: 50).boundingBoxes.count == 2)
        #expect(GeoCircle(lat: 89.9, lon: 0, radiusKm: 50).boundingBoxes[0].minLon == -180)
    }
}

/// The grid and the buckets that keep nearby answers coarse.
@Suite struct SharedPositionCellTests {
    @Test func everyPointOfACellMeasuresFromItsCentre() {
        let corner = SharedPositionCell(lat: 50.4500, lon: 30.5200)
        let inside = SharedPositionCell(lat: 50.4599, lon: 30.5299)
        #expect(corner == inside)
        #expect(abs(corner.lat - 50.455) < 1e-9 && abs(corner.lon - 30.525) < 1e-9)
        #expect(SharedPositionCell(lat: 50.4601, lon: 30.5200) != corner)
    }

    @Test func centresStayOnTheGlobe() {
        #expect(SharedPositionCell(lat: 90, lon: 180).lat == 90)
        #expect(abs(SharedPositionCell(lat: 90, lon: 180).lon - -179.995) < 1e-9)
        #expect(abs(SharedPositionCell(lat: -90, lon: -180).lat - -89.995) < 1e-9)
    }

    @Test func distancesAreBucketedUpwards() {
        #expect([0, 0.2, 1, 1.01, 9.5, 10, 10.2, 14.9, 15.1, 199].map(DistanceBucket.upperBoundKm(of:))
            == [1, 1, 1, 2, 10, 10, 15, 15, 20, 200])
    }
}
