import Foundation
import GRDB

extension ChatRoomLog {
    /// The seqs a group commit hands to the posts it writes together: each room's `lastSeq` is
    /// read once, advanced in memory by every row appended through ``append(_:toMeeting:sender:at:in:)``,
    /// and written back once per room by ``flush(in:)`` — instead of an `UPDATE … RETURNING`
    /// per post. A row advances the seq only once the caller reports it kept (``appended(_:)``,
    /// after its savepoint is released), so a post refused or rolled back leaves no gap.
    ///
    /// Nothing else may append to these rooms between two flushes: the group commit flushes
    /// before any other write (``ChatRoomLog/append(_:toRoom:kind:meetingId:at:in:)`` bumps
    /// the stored `lastSeq` itself) and before it commits.
    struct Seqs {
        private struct Room {
            var lastSeq: Int64
            /// Whether the room row exists (a meeting's room is created with its first row).
            var exists: Bool
            /// When the last kept row was sent, once one was: `lastSeq` must be written back.
            var lastMessageAt: Double?
        }

        private var rooms: [String: Room] = [:]

        /// Appends `entry` to the room of meeting `meetingId` with the room's next seq
        /// (creating the room on its first row), `sender` being its sender's name and photo, and
        /// returns it as stored. Does not take the seq: call ``appended(_:)`` once the row is kept.
        /// - Throws: ``ChatRoomLog/Repeated`` when its sender stored its `clientMessageId` in the
        ///   room already (then only the room may have been written: undo it).
        mutating func append(_ entry: Entry, toMeeting meetingId: String, sender: Sender?, at time: Date,
                             in db: Database) throws -> ChatMessage {
            let roomId = ChatRoomId.meeting(meetingId)
            let room = try self.room(roomId, db)
            if !room.exists {
                try db.cachedStatement(sql: "INSERT INTO chatRoom (id, meetingId, kind) VALUES (?, ?, ?)")
                    .execute(arguments: [roomId, meetingId, ChatRoomKind.meeting.rawValue])
            }
            return try insert(entry, id: RandomToken.id(at: time), seq: room.lastSeq + 1, toRoom: roomId, kind: .meeting,
                              meetingId: meetingId, sender: sender, at: time, skippingRepeat: true, in: db)
        }

        /// Whether the room of meeting `meetingId` has its row already (else the next append
        /// creates it).
        mutating func hasRoom(ofMeeting meetingId: String, _ db: Database) throws -> Bool {
            try room(ChatRoomId.meeting(meetingId), db).exists
        }

        /// Takes `message`'s seq in its room: it was appended by ``append(_:toMeeting:sender:at:in:)``
        /// and is kept.
        mutating func appended(_ message: ChatMessage) {
            rooms[message.roomId] = Room(lastSeq: message.seq, exists: true,
                                         lastMessageAt: message.sentAt.timeIntervalSince1970)
        }

        /// Writes each room's taken seqs (and its last message's time) back to its row, and
        /// forgets them all, so the next append reads the room again.
        mutating func flush(in db: Database) throws {
            for (roomId, room) in rooms {
                guard let lastMessageAt = room.lastMessageAt else { continue }
                try db.cachedStatement(sql: "UPDATE chatRoom SET lastSeq = ?, lastMessageAt = ? WHERE id = ?")
                    .execute(arguments: [room.lastSeq, lastMessageAt, roomId])
            }
            rooms = [:]
        }

        /// The room as this batch knows it, read on first use.
        private mutating func room(_ roomId: String, _ db: Database) throws -> Room {
            if let room = rooms[roomId] { return room }
            let lastSeq = try Int64.fetchOne(db.cachedStatement(sql: "SELECT lastSeq FROM chatRoom WHERE id = ?"),
                                             arguments: [roomId])
            let room = Room(lastSeq: lastSeq ?? 0, exists: lastSeq != nil, lastMessageAt: nil)
            rooms[roomId] = room
            return room
        }
    }
}
