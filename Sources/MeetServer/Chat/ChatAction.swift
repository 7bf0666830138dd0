/// A SEND to a meeting's chat room on the application side, `/app/meetings.{id}.{action}`:
/// `chat` posts a message, `read` moves the sender's read marker, `edit` and `delete` change
/// an earlier message, `typing` tells the room the sender is typing, `location` shares the
/// sender's way to the meeting (docs/chat.md).
struct ChatAction: Equatable {
    enum Kind: String {
        case chat, read, edit, delete, typing, location

        /// The kind whose name is `bytes`. Every name is short enough for a `String` kept inline
        /// (no allocation): comparing with each case in turn built an array at every SEND.
        init?(ascii bytes: Slice<UnsafeBufferPointer<UInt8>>) {
            self.init(rawValue: String(decoding: bytes, as: UTF8.self))
        }
    }

    var meetingId: String
    var kind: Kind

    init(meetingId: String, kind: Kind) {
        self.meetingId = meetingId
        self.kind = kind
    }

    /// The action `destination` names, given with or without `/app` (the broker hands it to the
    /// application without), or nil when it is none. An ASCII destination (every one a client
    /// builds from a meeting id) is read as bytes in place, which gives the same answer as reading
    /// it by characters (no ASCII character but CR-LF forms a cluster, and neither takes part)
    /// at a fraction of the cost, twice per chat SEND (the authorizer and the application).
    init?(appDestination destination: String) {
        let isASCII = destination.utf8.withContiguousStorageIfAvailable { !$0.contains(where: { $0 >= 0x80 }) } ?? false
        guard isASCII else {
            self.init(characters: destination)
            return
        }
        guard let action = destination.utf8.withContiguousStorageIfAvailable(Self.init(ascii:)) ?? nil else { return nil }
        self = action
    }

    /// The action in an ASCII destination's bytes.
    private init?(ascii bytes: UnsafeBufferPointer<UInt8>) {
        var rest = bytes[...]
        if rest.starts(with: "/app/".utf8) { rest = rest.dropFirst(4) }
        let prefix = "/meetings.".utf8
        guard rest.starts(with: prefix) else { return nil }
        rest = rest.dropFirst(prefix.count)
        guard let dot = rest.firstIndex(of: UInt8(ascii: ".")), dot != rest.startIndex,
              let kind = Kind(ascii: rest[(dot + 1)...]) else { return nil }
        self.init(meetingId: String(decoding: rest[..<dot], as: UTF8.self), kind: kind)
    }

    /// The same, by characters, for any destination.
    init?(characters destination: String) {
        let path = destination.hasPrefix("/app/") ? destination.dropFirst(4) : destination[...]
        let prefix = "/meetings."
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        guard let dot = rest.firstIndex(of: "."), dot != rest.startIndex,
              let kind = Kind(rawValue: String(rest[rest.index(after: dot)...])) else { return nil }
        self.init(meetingId: String(rest[..<dot]), kind: kind)
    }
}
