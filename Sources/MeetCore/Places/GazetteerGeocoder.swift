import Foundation
import Synchronization

/// The offline geocoder: the bundled GeoNames gazetteer of every town of 15,000 people or
/// more, loaded once and searched in memory. It knows towns, not streets.
///
/// Ranking (docs/geocoding.md): `log10(population + 1)` less a penalty for how the name
/// matched (exact 0, prefix 1, each typo 1.5) and, when a position is given,
/// `2 · log10(1 + km / 100)` for the distance from it.
public final class GazetteerGeocoder: Geocoder {
    /// Reverse lookups find nothing farther than this.
    public static let reverseReachKm = 500.0

    let gazetteer: Gazetteer

    /// Loads the gzip-compressed gazetteer file at `path` (about a second in a debug build).
    /// - Throws: when the file cannot be read or is not a gazetteer.
    public init(contentsOf path: String) throws {
        gazetteer = try Gazetteer(contentsOf: path)
    }

    /// The gazetteer built into MeetCore's resources, loaded on the first call and shared by
    /// every later one in the process (callers arriving meanwhile wait for the same load).
    public static func bundled() async throws -> GazetteerGeocoder {
        let load = bundledLoad.withLock { load in
            if let load { return load }
            let started = Task { try await loadOffThePool() }
            load = started
            return started
        }
        return try await load.value
    }

    /// Reads the bundled file on a Dispatch thread: it takes seconds in a debug build, which
    /// would starve the few threads that run every task of the process.
    private static func loadOffThePool() async throws -> GazetteerGeocoder {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result {
                    guard let url = Bundle.module.url(forResource: "gazetteer.tsv", withExtension: "gz") else {
                        throw CocoaError(.fileNoSuchFile)
                    }
                    return try GazetteerGeocoder(contentsOf: url.path)
                })
            }
        }
    }

    private static let bundledLoad = Mutex<Task<GazetteerGeocoder, any Error>?>(nil)

    /// Reads `query` as "address, town, region or country" parts: the first part naming a town picks it, the parts after narrow it, the ones before become the address; at most `limit` towns, best first.
    public func search(_ query: String, near position: Coordinate?, limit: Int) async throws -> [GeocodedPlace] {
        let query = try GeocoderQuery.validated(query)
        let limit = min(max(limit, 1), GeocoderQuery.maxLimit)
        // "Khreshchatyk 22, Kyiv, Ukraine": the first part that names a town is the town,
        // what comes before it is the address, what comes after narrows it down.
        let parts = query.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .prefix(GeocoderQuery.maxParts)
        for (index, part) in parts.enumerated() {
            let penalties = GazetteerSearch(gazetteer: gazetteer).penalties(for: part)
            let towns = narrowed(Array(penalties.keys), by: parts.dropFirst(index + 1))
            guard !towns.isEmpty else { continue }
            let ranked = towns.map { town in (town, score(town, penalty: penalties[town]!, near: position)) }
                .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
                .prefix(limit)
            let address = index > 0 ? parts[..<index].joined(separator: ", ") : nil
            return ranked.map { match in
                let town = Int(match.0)
                return place(town: town, city: gazetteer.city(around: gazetteer.towns[town].coordinate) ?? town,
                             address: address, near: position)
            }
        }
        return []
    }

    /// The nearest town to the point, with its region, country and time zone.
    public func reverse(lat: Double, lon: Double) async throws -> GeocodedPlace? {
        let position = try Coordinate(validatingLat: lat, lon: lon)
        guard let nearest = gazetteer.grid.nearest(to: position, withinKm: Self.reverseReachKm) else {
            return nil
        }
        return place(town: nearest.number, city: gazetteer.city(around: position) ?? nearest.number, address: nil, near: position)
    }

    /// Keeps the towns whose country or region every qualifier names ("Paris, Texas"),
    /// unless that would keep none: a qualifier may be in a language the gazetteer lacks.
    private func narrowed(_ towns: [Int32], by qualifiers: ArraySlice<String>) -> [Int32] {
        let keys = qualifiers.map(GazetteerKey.fold).filter { !$0.isEmpty }
        guard !keys.isEmpty else { return towns }
        let kept = towns.filter { number in
            let town = gazetteer.towns[Int(number)]
            let names = [town.countryCode, gazetteer.countries[town.countryCode] ?? "", town.region ?? ""]
                .map(GazetteerKey.fold)
            return keys.allSatisfy { key in names.contains { $0.hasPrefix(key) } }
        }
        return kept.isEmpty ? towns : kept
    }

    private func score(_ number: Int32, penalty: Double, near position: Coordinate?) -> Double {
        let town = gazetteer.towns[Int(number)]
        var score = log10(Double(town.population) + 1) - penalty
        if let position {
            score -= 2 * log10(1 + position.distanceKm(to: town.coordinate) / 100)
        }
        return score
    }

    /// `town` as a result: named by the address or the town, in `city` (the town itself, or
    /// the city it is a district of).
    private func place(town number: Int, city: Int, address: String?, near position: Coordinate?) -> GeocodedPlace {
        let town = gazetteer.towns[number]
        return GeocodedPlace(
            name: address ?? town.name, address: address, city: gazetteer.towns[city].name, region: town.region,
            country: gazetteer.countries[town.countryCode], countryCode: town.countryCode,
            lat: town.coordinate.lat, lon: town.coordinate.lon, timeZone: town.timeZone,
            distanceKm: position.map { ($0.distanceKm(to: town.coordinate) * 10).rounded() / 10 })
    }
}
