import GRDB

/// What a group commit needs to know about its posts before writing them, asked in one query
/// for the whole batch instead of two or three per post: whether each sender is the organizer
/// or a member of the meeting (with its title and whether it is cancelled), the sender's name
/// and photo, and whether the post's `clientMessageId` is stored already. A post whose sender
/// was found a member before (``ChatPosters``) is not looked up at all when nothing needs
/// checking before its row is written (no reply, no attachments, the room open): its insert
/// finds out whether it repeats an earlier one.
///
/// Only the common case is answered here: a post it has no answer for (a sender who is not a
/// member, or an unknown meeting) and a post it finds stored already take the per-post path,
/// which says which refusal applies or reads the original message.
struct ChatPostLookup {
    /// A member posting to a meeting's room: what the room and the sender look like.
    struct Poster: Sendable {
        var title: String
        var isCancelled: Bool
        var sender: ChatRoomLog.Sender
    }

    /// A post by a member.
    struct Access {
        var poster: Poster
        /// Whether the sender stored a message with this `clientMessageId` in this room already;
        /// nil when not looked up (the insert tells).
        var isRepeat: Bool?
    }

    /// By the post's position in the batch.
    private var access: [Int: Access] = [:]

    /// Looks up the posts among `writes`, their senders among `posters` first (caught up with
    /// other connections' commits by the caller: ``ChatPosters/catchUp(in:)``).
    init(_ writes: [ChatWrite], posters: ChatPosters, in db: Database) throws {
        let generation = posters.generation
        // The other posts' positions in the batch, by their place in the query's array.
        var positions: [Int] = []
        var posts = "["
        for (index, write) in writes.enumerated() {
            guard case .post(let post) = write else { continue }
            if let poster = posters.poster(ChatPosters.Key(meetingId: post.meetingId, senderId: post.senderId)),
               !poster.isCancelled, post.draft.replyToSeq == nil, post.draft.attachments?.isEmpty ?? true {
                access[index] = Access(poster: poster, isRepeat: nil)
                continue
            }
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
        var found: [ChatPosters.Key: Poster] = [:]
        while let row = try rows.next() {
            let index = positions[row[0]]
            let poster = Poster(title: row[1], isCancelled: row[2], sender: (name: row[3], photoId: row[4]))
            access[index] = Access(poster: poster, isRepeat: row[5])
            if case .post(let post) = writes[index] {
                found[ChatPosters.Key(meetingId: post.meetingId, senderId: post.senderId)] = poster
            }
        }
        posters.keep(found, readSince: generation)
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
        WHERE NOT user.banned
          AND (meeting.organizerId = post.senderId
               OR EXISTS (SELECT 1 FROM meetingMember WHERE meetingMember.meetingId = post.meetingId
                             AND meetingMember.userId = post.senderId))
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
