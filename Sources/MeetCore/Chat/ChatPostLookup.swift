import GRDB

/// What a group commit needs to know about its posts before writing them, asked in one query
/// for the whole batch instead of two or three per post: whether each sender is the organizer
/// or a member of the meeting (with its title and whether it is cancelled), the sender's name
/// and photo, and whether the post's `clientMessageId` is stored already.
///
/// Only the common case is answered here: a post it has no answer for (a sender who is not a
/// member, or an unknown meeting) and a post it finds stored already take the per-post path,
/// which says which refusal applies or reads the original message.
struct ChatPostLookup {
    /// A post by a member: what its room and its sender look like.
    struct Access {
        var title: String
        var isCancelled: Bool
        var sender: ChatRoomLog.Sender
        /// Whether the sender stored a message with this `clientMessageId` in this room already.
        var isRepeat: Bool
    }

    /// By the post's position in the batch.
    private var access: [Int: Access] = [:]

    /// Looks up the posts among `writes`.
    init(_ writes: [ChatWrite], in db: Database) throws {
        // The posts' positions in the batch, by their place in the query's array.
        var positions: [Int] = []
        var posts = "["
        for (index, write) in writes.enumerated() {
            guard case .post(let post) = write else { continue }
            posts += positions.isEmpty ? "[" : ",["
            positions.append(index)
            Self.appendJSONString(post.meetingId, to: &posts)
            posts += ","
            Self.appendJSONString(post.senderId, to: &posts)
            posts += ","
            Self.appendJSONString(post.draft.clientMessageId, to: &posts)
            posts += "]"
        }
        guard !positions.isEmpty else { return }
        posts += "]"
        let rows = try Row.fetchCursor(db.cachedStatement(sql: Self.query), arguments: [posts])
        while let row = try rows.next() {
            access[positions[row[0]]] = Access(title: row[1], isCancelled: row[2], sender: (name: row[3], photoId: row[4]),
                                               isRepeat: row[5])
        }
    }

    /// What was found about the post at `index` of the batch, or nil when the sender is not the
    /// organizer nor a member (or the meeting does not exist).
    subscript(index: Int) -> Access? {
        access[index]
    }

    /// Each post is `[meetingId, senderId, clientMessageId]`; its place in the array and its room
    /// id are derived, not read: each value taken out of an element parses it again. CROSS JOIN
    /// keeps the posts outermost, so each is one look-up by key per table (meeting, user,
    /// profile, membership, the `chatMessage_client` index), as the per-post queries were.
    private static let query = """
        WITH post (position, meetingId, senderId, clientMessageId, roomId) AS MATERIALIZED (
            SELECT key, meetingId, value ->> 1, value ->> 2, '\(ChatRoomKind.meeting.rawValue):' || meetingId
            FROM (SELECT key, value, value ->> 0 AS meetingId FROM json_each(?)))
        SELECT post.position, meeting.title, meeting.cancelledAt IS NOT NULL, user.displayName, profile.photoId,
               EXISTS (SELECT 1 FROM chatMessage WHERE chatMessage.roomId = post.roomId
                          AND chatMessage.senderId = post.senderId AND chatMessage.clientMessageId = post.clientMessageId)
        FROM post
        CROSS JOIN meeting ON meeting.id = post.meetingId
        CROSS JOIN user ON user.id = post.senderId
        LEFT JOIN profile ON profile.userId = post.senderId
        WHERE meeting.organizerId = post.senderId
           OR EXISTS (SELECT 1 FROM meetingMember WHERE meetingMember.meetingId = post.meetingId
                         AND meetingMember.userId = post.senderId)
        """

    /// Appends `text` as a JSON string literal.
    private static func appendJSONString(_ text: String, to json: inout String) {
        json += "\""
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
            json += text
            json += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case _ where scalar.value < 0x20: json += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
    }
}
