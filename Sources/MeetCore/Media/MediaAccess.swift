import GRDB

/// Who may read an upload, and who may use one.
public enum MediaAccess {
    /// The upload `id` if `viewer` may read it, else `nil` (answered as not found, like a
    /// private meeting). The uploader always may; others through what uses it: a profile photo
    /// whoever may see that profile, a meeting's photo whoever may see that meeting (a private
    /// meeting's organizer, members and invitees), a chat attachment the members of its room (the two
    /// of a direct conversation).
    public static func readable(_ id: String, by viewer: String, in db: Database) throws -> MediaItem? {
        guard RandomToken.isWellFormedId(id), let item = try MediaItem.fetchOne(db, key: id) else { return nil }
        if item.uploaderId == viewer { return item }
        let profilePhoto = try Bool.fetchOne(db, SQLRequest<Bool>(literal: """
            SELECT EXISTS (SELECT 1 FROM profile JOIN user ON user.id = profile.userId
                           WHERE profile.photoId = \(id) AND \(UserVisibility.visible(to: viewer)))
            """)) ?? false
        if profilePhoto { return item }
        for meetingId in try String.fetchAll(db, sql: "SELECT id FROM meeting WHERE photoId = ?", arguments: [id]) {
            if try role(of: viewer, in: meetingId, db) != nil { return item }
        }
        let rooms = try String.fetchAll(db, sql: """
            SELECT DISTINCT chatRoom.meetingId FROM chatMessage JOIN chatRoom ON chatRoom.id = chatMessage.roomId,
                json_each(chatMessage.attachments)
            WHERE chatMessage.attachments <> '[]' AND json_each.value = ? AND chatRoom.meetingId IS NOT NULL
            """, arguments: [id])
        for meetingId in rooms {
            if let role = try role(of: viewer, in: meetingId, db), role == .organizer || role == .member { return item }
        }
        // A direct message's photo: the two members of its conversation.
        let inConversation = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM directConversation AS direct JOIN chatMessage ON chatMessage.roomId = direct.roomId,
                               json_each(chatMessage.attachments)
                           WHERE (direct.userA = ? OR direct.userB = ?) AND chatMessage.attachments <> '[]' AND json_each.value = ?)
            """, arguments: [viewer, viewer, id]) ?? false
        return inConversation ? item : nil
    }

    /// Whether `userId` uploaded the media `id` (and it still exists): what a profile's or a
    /// meeting's `photoId` and a chat message's attachments must be.
    public static func isUploaded(_ id: String, by userId: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM media WHERE id = ? AND uploaderId = ?)", arguments: [id, userId]) ?? false
    }

    /// Refuses a new `photoId` that `userId` did not upload with 422 `media.notOwned` on the
    /// field; a value left as it was (`current`) is not checked again.
    static func checkPhoto(_ photoId: String?, replacing current: String?, by userId: String, in db: Database) throws {
        guard let photoId, photoId != current, RandomToken.isWellFormedId(photoId) else { return }
        guard try isUploaded(photoId, by: userId, in: db) else { throw MeetError.invalidField("photoId", "media.notOwned") }
    }

    /// The viewer's role in a meeting they may see, `nil` when the meeting is hidden from them.
    private static func role(of viewer: String, in meetingId: String, _ db: Database) throws -> MeetingRole? {
        do {
            return try MeetingRecord.visible(meetingId, to: viewer, in: db).1
        } catch let error as MeetError where error == .meetingNotFound {
            return nil
        }
    }
}
