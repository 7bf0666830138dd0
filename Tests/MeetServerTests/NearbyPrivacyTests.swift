import Foundation
import Testing

/// Nearby search cannot be used to locate someone (issue 20, "nearby search allows
/// trilateration"): answers depend only on the coarse cell a shared position falls in, and
/// the search stays near the caller's own position.
@Suite struct NearbyPrivacyTests {
    static func put(_ user: SignedInUser, _ lat: Double, _ lon: Double, on server: TestServer) async throws {
        let reply = try await server.send(.put, "/api/v1/me/location", json: ["lat": lat, "lon": lon, "share": true], token: user.token)
        #expect(reply.status == 200, "\(reply.text)")
    }

    @Test func answersFromManyCentresDoNotMoveWhenSomeoneMovesWithinTheirCell() async throws {
        try await TestServer.run { server in
            let prober = try await server.signedInUser()
            let target = try await server.signedInUser()
            try await Self.put(prober, 50.4501, 30.5234, on: server)
            // Centres around the target on every side, as a trilateration would pick them.
            let centres = [(50.4400, 30.5100), (50.4700, 30.5100), (50.4400, 30.5400), (50.4700, 30.5400), (50.4550, 30.5250)]
            func answers() async throws -> [Double?] {
                var distances: [Double?] = []
                for (lat, lon) in centres {
                    let reply = try await server.send(
                        .get, "/api/v1/users/nearby?lat=\(lat)&lon=\(lon)&radiusKm=5", token: prober.token)
                    #expect(reply.status == 200, "\(reply.text)")
                    let items = reply.json["items"] as? [[String: Any]] ?? []
                    distances.append(items.first { ($0["user"] as? [String: Any])?["id"] as? String == target.id }?["distanceKm"] as? Double)
                }
                return distances
            }
            // Two positions 0.85 km apart, in the same 0.01° cell.
            try await Self.put(target, 50.4512, 30.5212, on: server)
            let before = try await answers()
            try await Self.put(target, 50.4588, 30.5288, on: server)
            let after = try await answers()
            #expect(before.allSatisfy { $0 != nil }, "the target is found from every centre: \(before)")
            #expect(before == after)
            #expect(before.allSatisfy { $0 == $0?.rounded() }, "whole kilometres only: \(before)")
        }
    }

    @Test func aSearchStaysNearTheCallersOwnPosition() async throws {
        try await TestServer.run { server in
            let caller = try await server.signedInUser()
            let unplaced = try await server.send(.get, "/api/v1/users/nearby?lat=50.45&lon=30.52&radiusKm=5", token: caller.token)
            #expect(unplaced.status == 422 && unplaced.text.contains("location.unknown"), "\(unplaced.text)")

            try await Self.put(caller, 50.4501, 30.5234, on: server)
            let lviv = try await server.send(.get, "/api/v1/users/nearby?lat=49.8397&lon=24.0297&radiusKm=5", token: caller.token)
            #expect(lviv.status == 422 && lviv.text.contains("location.tooFar"), "\(lviv.text)")
            let near = try await server.send(.get, "/api/v1/users/nearby?lat=50.52&lon=30.60&radiusKm=5", token: caller.token)
            #expect(near.status == 200, "\(near.text)")
        }
    }
}
