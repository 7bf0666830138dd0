import Foundation
import Hummingbird
import MeetCore

/// The feed's query string (`lat`, `lon`, `radiusKm`, `activityIds`, `from`, `to`,
/// `freeOnly`, `hasSpots`, `sort`, `cursor`, `limit`), each malformed value a field problem.
struct FeedQuery {
    var request = FeedRequest()

    init(_ query: Parameters) throws {
        var problems: [MeetError.FieldProblem] = []
        func value<T>(_ name: String, _ parse: (String) -> T?) -> T? {
            guard let text = query[name[...]].map(String.init) else { return nil }
            guard let parsed = parse(text) else {
                problems.append(.init(field: name, code: "field.invalid"))
                return nil
            }
            return parsed
        }
        let flag: (String) -> Bool? = { ["true": true, "1": true, "false": false, "0": false][$0] }
        let time: (String) -> Date? = RFC3339.date(from:)
        request.lat = value("lat") { Double($0) }
        request.lon = value("lon") { Double($0) }
        request.radiusKm = value("radiusKm") { Double($0) }
        // `activityIds=a,b` or `activityIds=a&activityIds=b`
        request.activityIds = query.getAll("activityIds").flatMap { $0.split(separator: ",").map(String.init) }
        request.from = value("from", time)
        request.to = value("to", time)
        request.freeOnly = value("freeOnly", flag) ?? false
        request.hasSpots = value("hasSpots", flag) ?? false
        request.sort = value("sort") { FeedRequest.Sort(rawValue: $0) } ?? .date
        request.cursor = query["cursor"].map(String.init)
        request.limit = value("limit") { Int($0) } ?? 20
        if !problems.isEmpty { throw MeetError.invalidFields(problems) }
    }
}
