/// A SEND to a meeting's chat room on the application side, `/app/meetings.{id}.{action}`:
/// `chat` posts a message, `read` moves the sender's read marker, `edit` and `delete` change
/// an earlier message, `typing` tells the room the sender is typing, `location` shares the
/// sender's way to the meeting (docs/chat.md).
struct ChatAction: Equatable {
    enum Kind: String {
        case chat, read, edit, delete, typing, location
    }

    var meetingId: String
    var kind: Kind

    /// The action `destination` names, given with or without `/app` (the broker hands it to the
    /// application without), or nil when it is none.
    init?(appDestination destination: String) {
        let path = destination.hasPrefix("/app/") ? destination.dropFirst(4) : destination[...]
        let prefix = "/meetings."
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        guard let dot = rest.firstIndex(of: "."), dot != rest.startIndex,
              let kind = Kind(rawValue: String(rest[rest.index(after: dot)...])) else { return nil }
        meetingId = String(rest[..<dot])
        self.kind = kind
    }
}
