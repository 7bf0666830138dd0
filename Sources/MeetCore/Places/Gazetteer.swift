import Foundation

/// The offline gazetteer in memory: towns with their country, region, population and time
/// zone, the names to find them by, and the indexes behind forward and reverse lookup.
///
/// It is read once from the file `Resources/Gazetteer/build_gazetteer.py` writes (the format
/// is described there) and never changes afterwards, so any number of tasks may share it.
struct Gazetteer: Sendable {
    struct Town: Sendable {
        var name: String
        var coordinate: Coordinate
        var countryCode: String
        var region: String?
        var population: Int
        var timeZone: String
    }

    /// Most populous first: a town's number is its rank.
    let towns: [Town]
    /// English country names by ISO 3166-1 alpha-2 code.
    let countries: [String: String]
    let names: GazetteerNames
    let typos: TypoIndex
    let grid: SpatialGrid

    /// Reads the gazetteer file at `path`.
    /// - Throws: `CocoaError` when the file cannot be read, `GazetteerFileError` when a
    ///   line does not parse.
    init(contentsOf path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var countries: [String: String] = [:]
        var regions: [String: String] = [:]
        var towns: [Town] = []
        var names = GazetteerNames()
        var lineNumber = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            lineNumber += 1
            guard line.first != UInt8(ascii: "#") else { continue }
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            func text(_ index: Int) -> String { String(decoding: fields[index], as: UTF8.self) }
            guard fields[0].count == 1, let kind = fields[0].first else {
                throw GazetteerFileError(path: path, line: lineNumber)
            }
            switch (kind, fields.count) {
            case (UInt8(ascii: "C"), 3):
                countries[text(1)] = text(2)
            case (UInt8(ascii: "R"), 3):
                regions[text(1)] = text(2)
            case (UInt8(ascii: "P"), 9):
                guard let lat = Double(text(3)), let lon = Double(text(4)), let population = Int(text(7)) else {
                    throw GazetteerFileError(path: path, line: lineNumber)
                }
                let countryCode = text(5)
                towns.append(Town(
                    name: text(2), coordinate: Coordinate(lat: lat, lon: lon), countryCode: countryCode,
                    region: regions[countryCode + "." + text(6)], population: population, timeZone: text(8)))
            case (UInt8(ascii: "K"), 3):
                let numbers = fields[2].split(separator: UInt8(ascii: ",")).compactMap {
                    Int32(String(decoding: $0, as: UTF8.self))
                }
                guard !numbers.isEmpty, numbers.allSatisfy({ Int($0) < towns.count }) else {
                    throw GazetteerFileError(path: path, line: lineNumber)
                }
                names.append(key: fields[1], towns: numbers)
            default:
                throw GazetteerFileError(path: path, line: lineNumber)
            }
        }
        self.towns = towns
        self.countries = countries
        self.names = names
        typos = TypoIndex(names: names)
        grid = SpatialGrid(points: towns.map(\.coordinate))
    }

    /// People per km² assumed when estimating how far a town reaches from its centre.
    static let urbanDensity = 3000.0

    /// The radius of a disc holding `population` people at ``urbanDensity``: 18 km for Kyiv,
    /// 1.5 km for a town of 20,000.
    static func urbanRadiusKm(population: Int) -> Double {
        (Double(population) / (.pi * urbanDensity)).squareRoot()
    }

    /// The number of the most populous town whose disc covers `position`, so that a district
    /// ("Stare Misto", "Mitte") is placed in its city (Kyiv, Berlin).
    func city(around position: Coordinate) -> Int? {
        guard let biggest = towns.first else { return nil }
        let reach = Self.urbanRadiusKm(population: biggest.population)
        return grid.points(near: position, withinKm: reach)
            .filter { $0.distanceKm <= Self.urbanRadiusKm(population: towns[$0.number].population) }
            .map(\.number)
            .min()
    }
}

/// A gazetteer file whose line does not follow the format of `build_gazetteer.py`.
struct GazetteerFileError: Error, CustomStringConvertible {
    var path: String
    var line: Int
    var description: String { "\(path):\(line): not a gazetteer line" }
}
