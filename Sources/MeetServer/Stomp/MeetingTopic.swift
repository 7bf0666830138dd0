/// A meeting's room on the broker, `/topic/meetings.{id}.{room}`: dot-separated, so that a
/// relay through RabbitMQ works unchanged (DESIGN.md).
struct MeetingTopic: Equatable {
    enum Room: String {
        case chat, typing, locations
    }

    private static let prefix = "/topic/meetings."

    var meetingId: String
    var room: Room

    /// The topic `destination` names, or nil when it is no meeting room.
    init?(destination: String) {
        self.init(destination, after: Self.prefix)
    }

    /// The room a SEND to `/app/meetings.{id}.chat` posts to; `destination` is given as the
    /// broker hands it to the application, with or without `/app`. Only the chat room takes
    /// messages so far.
    init?(appDestination destination: String) {
        let path = destination.hasPrefix("/app/") ? String(destination.dropFirst(4)) : destination
        self.init(path, after: "/meetings.")
        guard room == .chat else { return nil }
    }

    private init?(_ destination: String, after prefix: String) {
        guard destination.hasPrefix(prefix) else { return nil }
        let rest = destination.dropFirst(prefix.count)
        guard let dot = rest.firstIndex(of: "."), let room = Room(rawValue: String(rest[rest.index(after: dot)...])) else {
            return nil
        }
        let meetingId = rest[..<dot]
        guard !meetingId.isEmpty else { return nil }
        self.meetingId = String(meetingId)
        self.room = room
    }
}
