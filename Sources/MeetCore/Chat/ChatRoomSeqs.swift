import Foundation
import GRDB

extension ChatRoomLog {
    /// The seqs a group commit hands to the posts it writes together: each room's `lastSeq` is
    /// read once, advanced in memory by every row appended through ``append(_:toMeeting:sender:at:in:)``,
    /// and written back once per room by ``flush(in:)`` — instead of an `UPDATE … RETURNING`
    /// per post. A row advances the seq only once the caller reports it kept (``appended(_:toMeeting:)``,
    /// after its savepoint is released), so a post refused or rolled back leaves no gap.
    ///
    /// Nothing else may append to these rooms between two flushes: the group commit flushes
    /// before any other write (``ChatRoomLog/append(_:toRoom:kind:meetingId:at:in:)`` bumps
    /// the stored `lastSeq` itself) and before it commits.
    struct Seqs {
        private struct Room {
            /// The room's id, built once per batch.
            var id: String
            var lastSeq: Int64
            /// Whether the room row exists (a meeting's room is created with its first row).
            var exists: Bool
            /// When the last kept row was sent, once one was: `lastSeq` must be written back.
            var lastMessageAt: Double?

            /// `message`, kept, was appended.
            mutating func take(_ message: ChatMessage) {
                lastSeq = message.seq
                exists = true
                lastMessageAt = message.sentAt.timeIntervalSince1970
            }
        }

        /// By meeting id, which every post names: no room id is built to find a room.
        private var rooms: [String: Room] = [:]
        /// The rows' insert, looked up once per batch: GRDB's cache hashes the SQL at each look-up.
        private var insert: Statement?

        /// Appends `entry` to the room of meeting `meetingId` with the room's next seq
        /// (creating the room on its first row), `sender` being its sender's name and photo, and
        /// returns it as stored. Does not take the seq: call ``appended(_:toMeeting:)`` once the row is kept.
        /// - Throws: ``ChatRoomLog/Repeated`` when its sender stored its `clientMessageId` in the
        ///   room already (then only the room may have been written: undo it).
        mutating func append(_ entry: Entry, toMeeting meetingId: String, sender: Sender?, at time: Date,
                             in db: Database) throws -> ChatMessage {
            let room = try self.room(ofMeeting: meetingId, db)
            if !room.exists {
                try db.cachedStatement(sql: "INSERT INTO chatRoom (id, meetingId, kind) VALUES (?, ?, ?)")
                    .execute(arguments: [room.id, meetingId, ChatRoomKind.meeting.rawValue])
            }
            if insert == nil { insert = try db.cachedStatement(sql: ChatRoomLog.insertUnlessRepeated) }
            return try ChatRoomLog.insert(entry, id: RandomToken.id(at: time), seq: room.lastSeq + 1, toRoom: room.id, kind: .meeting,
                                          meetingId: meetingId, sender: sender, at: time, skippingRepeat: true, using: insert, in: db)
        }

        /// Whether the room of meeting `meetingId` has its row already (else the next append
        /// creates it).
        mutating func hasRoom(ofMeeting meetingId: String, _ db: Database) throws -> Bool {
            try room(ofMeeting: meetingId, db).exists
        }

        /// Takes `message`'s seq in the room of meeting `meetingId`: it was appended by
        /// ``append(_:toMeeting:sender:at:in:)`` and is kept.
        mutating func appended(_ message: ChatMessage, toMeeting meetingId: String) {
            rooms[meetingId]?.take(message)
        }

        /// Writes each room's taken seqs (and its last message's time) back to its row, and
        /// forgets them all, so the next append reads the room again.
        mutating func flush(in db: Database) throws {
            for room in rooms.values {
                guard let lastMessageAt = room.lastMessageAt else { continue }
                try db.cachedStatement(sql: "UPDATE chatRoom SET lastSeq = ?, lastMessageAt = ? WHERE id = ?")
                    .execute(arguments: [room.lastSeq, lastMessageAt, room.id])
            }
            rooms = [:]
        }

        /// The room as this batch knows it, read on first use.
        private mutating func room(ofMeeting meetingId: String, _ db: Database) throws -> Room {
            if let room = rooms[meetingId] { return room }
            let id = ChatRoomId.meeting(meetingId)
            let lastSeq = try Int64.fetchOne(db.cachedStatement(sql: "SELECT lastSeq FROM chatRoom WHERE id = ?"),
                                             arguments: [id])
            let room = Room(id: id, lastSeq: lastSeq ?? 0, exists: lastSeq != nil, lastMessageAt: nil)
            rooms[meetingId] = room
            return room
        }
    }
}
