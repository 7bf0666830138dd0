/// A SEND about a direct conversation, `/app/direct.{userId}` (a message to that friend) or
/// `/app/direct.{userId}.{action}` (docs/chat.md, "Direct messages").
struct DirectAction: Equatable {
    enum Kind: String {
        /// `/app/direct.{userId}`: a message.
        case message
        /// `/app/direct.{userId}.read`: the sender's read marker.
        case read
        /// `/app/direct.{userId}.typing`: the sender is typing to that friend.
        case typing
        /// `/app/direct.{userId}.edit`: the sender edits one of their messages.
        case edit
        /// `/app/direct.{userId}.delete`: the sender deletes one of their messages.
        case delete
    }

    var peerId: String
    var kind: Kind

    /// The action `destination` names, given with or without `/app`, or nil when it is none.
    init?(appDestination destination: String) {
        let path = destination.hasPrefix("/app/") ? destination.dropFirst(4) : destination[...]
        let prefix = "/direct."
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard let peer = parts.first, !peer.isEmpty, parts.count <= 2 else { return nil }
        guard let kind = parts.count == 1 ? .message : Kind(rawValue: String(parts[1])), parts.count == 1 || kind != .message else {
            return nil
        }
        peerId = String(peer)
        self.kind = kind
    }
}
