import CompressNIO
import Foundation
import NIOCore

/// The offline gazetteer in memory: towns with their country, region, population and time
/// zone, the names to find them by, and the indexes behind forward and reverse lookup.
///
/// It is read once from the gzip-compressed file `Resources/Gazetteer/build_gazetteer.py`
/// writes (the format is described there) and never changes afterwards, so any number of
/// tasks may share it.
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

    /// The file inflates to about 8 MB; a bigger one is not a gazetteer.
    private static let maxInflatedSize = 64 << 20

    /// Reads the gzip-compressed gazetteer file at `path`.
    /// - Throws: `CocoaError` when the file cannot be read, `CompressNIOError` when it is not
    ///   gzip, `GazetteerFileError` when a line does not parse.
    init(contentsOf path: String) throws {
        var compressed = ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: path)))
        let text = try compressed.decompress(with: .gzip(), maxSize: Self.maxInflatedSize)
        var file = GazetteerFile(path: path)
        try text.withUnsafeReadableBytes { raw in
            try file.read(raw.bindMemory(to: UInt8.self))
        }
        towns = file.towns
        countries = file.countries
        names = file.names
        typos = TypoIndex(names: file.names)
        grid = SpatialGrid(points: file.towns.map(\.coordinate))
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

/// Reads the lines of a gazetteer file straight from its bytes: there are 290,000 of them,
/// and the server should not wait long for the first place it looks up.
private struct GazetteerFile {
    let path: String
    var countries: [String: String] = [:]
    var regions: [String: String] = [:]
    var towns: [Gazetteer.Town] = []
    var names = GazetteerNames()

    init(path: String) {
        self.path = path
    }

    mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        var fields: [Range<Int>] = []
        var lineStart = 0, lineNumber = 0
        while lineStart < bytes.count {
            lineNumber += 1
            fields.removeAll(keepingCapacity: true)
            var end = lineStart, fieldStart = lineStart
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") {
                if bytes[end] == UInt8(ascii: "\t") {
                    fields.append(fieldStart..<end)
                    fieldStart = end + 1
                }
                end += 1
            }
            fields.append(fieldStart..<end)
            defer { lineStart = end + 1 }
            if end == lineStart || bytes[lineStart] == UInt8(ascii: "#") { continue }
            guard readLine(bytes, fields) else { throw GazetteerFileError(path: path, line: lineNumber) }
        }
    }

    /// Takes in one line split into `fields`; false when it is not a gazetteer line.
    private mutating func readLine(_ bytes: UnsafeBufferPointer<UInt8>, _ fields: [Range<Int>]) -> Bool {
        func text(_ index: Int) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[fields[index]]), as: UTF8.self)
        }
        guard fields[0].count == 1 else { return false }
        switch (bytes[fields[0].lowerBound], fields.count) {
        case (UInt8(ascii: "C"), 3):
            countries[text(1)] = text(2)
        case (UInt8(ascii: "R"), 3):
            regions[text(1)] = text(2)
        case (UInt8(ascii: "P"), 9):
            guard let lat = Double(text(3)), let lon = Double(text(4)), let population = Int(text(7)) else { return false }
            let countryCode = text(5)
            towns.append(Gazetteer.Town(
                name: text(2), coordinate: Coordinate(lat: lat, lon: lon), countryCode: countryCode,
                region: regions[countryCode + "." + text(6)], population: population, timeZone: text(8)))
        case (UInt8(ascii: "K"), 3):
            guard let numbers = Self.townNumbers(bytes, fields[2], below: towns.count) else { return false }
            names.append(key: UnsafeBufferPointer(rebasing: bytes[fields[1]]), towns: numbers)
        default:
            return false
        }
        return true
    }

    /// The comma-separated town numbers in `bytes[range]`, if each is a known town.
    private static func townNumbers(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, below limit: Int) -> [Int32]? {
        var numbers: [Int32] = []
        var value = 0, digits = 0
        for index in range.lowerBound...range.upperBound {
            let byte = index < range.upperBound ? bytes[index] : UInt8(ascii: ",")
            if byte == UInt8(ascii: ",") {
                guard digits > 0, value < limit else { return nil }
                numbers.append(Int32(value))
                value = 0
                digits = 0
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 9 else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            }
        }
        return numbers
    }
}

/// A gazetteer file whose line does not follow the format of `build_gazetteer.py`.
struct GazetteerFileError: Error, CustomStringConvertible {
    var path: String
    var line: Int
    var description: String { "\(path):\(line): not a gazetteer line" }
}
