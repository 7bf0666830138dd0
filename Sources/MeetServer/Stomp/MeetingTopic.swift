/// A meeting's room on the broker, `/topic/meetings.{id}.{room}`: dot-separated, so that a
/// relay through RabbitMQ works unchanged (DESIGN.md).
struct MeetingTopic: Equatable {
    enum Room: String, CaseIterable {
        case chat, typing, locations
    }

    private static let prefix = "/topic/meetings."

    var meetingId: String
    var room: Room

    /// The destination subscribers name (`/topic/meetings.{id}.chat`).
    var destination: String { Self.prefix + meetingId + "." + room.rawValue }

    init(meetingId: String, room: Room) {
        self.meetingId = meetingId
        self.room = room
    }

    /// The topic `destination` names, or nil when it is no meeting room.
    init?(destination: String) {
        guard destination.hasPrefix(Self.prefix) else { return nil }
        let rest = destination.dropFirst(Self.prefix.count)
        guard let dot = rest.firstIndex(of: "."), let room = Room(rawValue: String(rest[rest.index(after: dot)...])) else {
            return nil
        }
        let meetingId = rest[..<dot]
        guard !meetingId.isEmpty else { return nil }
        self.meetingId = String(meetingId)
        self.room = room
    }
}
