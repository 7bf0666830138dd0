import Foundation
import MeetCore
import NIOCore

/// What `/topic/meetings.{id}.locations` carries: `{userId, lat, lon, distanceMeters,
/// etaSeconds, updatedAt}` for a member's position, `{userId, stopped: true}` when their
/// sharing ends. Decoded when another node's change comes over the relay.
enum OnTheWayBody: Codable, Sendable {
    case position(OnTheWayBoard.Position)
    case stopped(String)

    init(_ position: OnTheWayBoard.Position) {
        self = .position(position)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let userId = try container.decode(String.self, forKey: .userId)
        if try container.decodeIfPresent(Bool.self, forKey: .stopped) == true {
            self = .stopped(userId)
            return
        }
        self = .position(OnTheWayBoard.Position(
            userId: userId,
            coordinate: Coordinate(lat: try container.decode(Double.self, forKey: .lat), lon: try container.decode(Double.self, forKey: .lon)),
            distanceMeters: try container.decode(Int.self, forKey: .distanceMeters),
            etaSeconds: try container.decode(Int.self, forKey: .etaSeconds),
            updatedAt: try container.decode(Date.self, forKey: .updatedAt)))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .position(let position):
            try container.encode(position.userId, forKey: .userId)
            try container.encode(position.coordinate.lat, forKey: .lat)
            try container.encode(position.coordinate.lon, forKey: .lon)
            try container.encode(position.distanceMeters, forKey: .distanceMeters)
            try container.encode(position.etaSeconds, forKey: .etaSeconds)
            try container.encode(position.updatedAt, forKey: .updatedAt)
        case .stopped(let userId):
            try container.encode(userId, forKey: .userId)
            try container.encode(true, forKey: .stopped)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case userId, lat, lon, distanceMeters, etaSeconds, updatedAt, stopped
    }

    func json() throws -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return ByteBuffer(data: try encoder.encode(self))
    }

    /// A body as ``json()`` wrote it (another node's).
    init(json: ByteBuffer) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        self = try decoder.decode(Self.self, from: Data(buffer: json))
    }
}

/// What a member sends to `/app/meetings.{id}.location`: `{lat, lon, accuracy, heading?,
/// speed?}` (the first one opts them in), or `{stop: true}`.
enum OnTheWayRequest: Decodable, Sendable {
    case position(lat: Double, lon: Double, accuracy: Double, heading: Double?, speed: Double?)
    case stop

    static let shape = "{lat, lon, accuracy, heading?, speed?} or {stop: true}"

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if try container.decodeIfPresent(Bool.self, forKey: .stop) == true {
            self = .stop
            return
        }
        self = .position(
            lat: try container.decode(Double.self, forKey: .lat), lon: try container.decode(Double.self, forKey: .lon),
            accuracy: try container.decode(Double.self, forKey: .accuracy),
            heading: try container.decodeIfPresent(Double.self, forKey: .heading),
            speed: try container.decodeIfPresent(Double.self, forKey: .speed))
    }

    private enum CodingKeys: String, CodingKey {
        case lat, lon, accuracy, heading, speed, stop
    }
}
