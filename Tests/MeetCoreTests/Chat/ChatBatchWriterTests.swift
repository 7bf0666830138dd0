import Foundation
import GRDB
import Testing
@testable import MeetCore

/// The group commit's per-batch path (one look-up for all posts, seqs taken in memory and
/// written back once per room) must answer every post as the per-post path did.
@Suite struct ChatBatchWriterTests {
    /// ann organizes "open" (bob and cat members) and "closed" (bob a member, then cancelled);
    /// eve is an outsider.
    private struct Rooms {
        let fixture: MeetingFixture
        let open: String
        let closed: String
        let writer: ChatBatchWriter

        init() async throws {
            fixture = try MeetingFixture()
            writer = ChatBatchWriter(pushDelay: 5, posters: ChatPosters(database: fixture.database), audience: ChatPushAudience(database: fixture.database))
            try fixture.users("ann", "bob", "cat", "eve")
            open = try await fixture.service.create(MeetingFixture.draft(title: "Open"), by: "ann").id
            closed = try await fixture.service.create(MeetingFixture.draft(title: "Closed"), by: "ann").id
            _ = try await fixture.service.join(open, by: "bob")
            _ = try await fixture.service.join(open, by: "cat")
            _ = try await fixture.service.join(closed, by: "bob")
            _ = try await fixture.service.cancel(closed, by: "ann")
            try await markEventsRead()
        }

        /// As if the event reader had had its turn: the first batch reads what waits before its
        /// posts, which would take seqs the tests do not expect.
        func markEventsRead() async throws {
            try await fixture.database.writer.write { db in
                if let last = try Int64.fetchOne(db, sql: "SELECT max(id) FROM event") {
                    try DomainEvents.markConsumed(ChatEvents.consumer, through: last, in: db)
                }
            }
        }

        func post(_ sender: String, _ clientMessageId: String, to meetingId: String? = nil, text: String = "hi",
                  replyTo: Int64? = nil, second: Double = 0) -> ChatWrite {
            .post(ChatService.Post(meetingId: meetingId ?? open, senderId: sender,
                                   draft: ChatDraft(text: text, clientMessageId: clientMessageId, replyToSeq: replyTo),
                                   text: text, at: MeetingFixture.now + second))
        }

        /// Writes `writes` as one batch, as the commit queue does, by `writer` (the one that
        /// kept the posters of earlier batches unless given).
        func write(_ writes: [ChatWrite], by writer: ChatBatchWriter? = nil) async throws -> [Result<ChatWritten, any Error>] {
            try await batch(writes, by: writer).outcomes
        }

        /// The same, with the domain events the batch read first.
        func batch(_ writes: [ChatWrite], by writer: ChatBatchWriter? = nil) async throws -> ChatBatchWritten {
            let writer = writer ?? self.writer
            return try await fixture.database.writer.writeWithoutTransaction { db in writer.write(writes, in: db) }
        }

        /// A moderator's redaction of `messageId`, outside the group commit: by the admin CLI
        /// (another connection), or by this process's `/admin` routes.
        func redact(_ messageId: String, byAnotherConnection: Bool) async throws {
            if byAnotherConnection {
                let other = try DatabaseQueue(path: fixture.folder.url.appendingPathComponent("db.sqlite").path)
                try await other.write { db in
                    _ = try ChatModeration.redact(messageId: messageId, by: "cli:mod", at: MeetingFixture.now, in: db)
                }
            } else {
                try await ModerationService(database: fixture.database, now: { MeetingFixture.now })
                    .redactMessage(messageId, reason: "spam", by: .user("ann"))
            }
        }

        /// SQLite rolls back the transaction of any batch storing the text "full", as it may on
        /// a full disk, an I/O error or no memory (a trigger on the writer's connection, until
        /// ``freeTheDisk()``).
        func fillTheDisk() async throws {
            try await fixture.database.writer.write { db in
                try db.execute(sql: """
                    CREATE TEMP TRIGGER diskFull BEFORE INSERT ON main.chatMessage WHEN NEW.text = 'full'
                    BEGIN SELECT RAISE(ROLLBACK, 'database or disk is full'); END
                    """)
            }
        }

        func freeTheDisk() async throws {
            try await fixture.database.writer.write { db in try db.execute(sql: "DROP TRIGGER temp.diskFull") }
        }

        /// Whether the writer keeps `sender` as a poster to the room of `open`.
        func isKept(_ sender: String) -> Bool {
            writer.posters.poster(ChatPosters.Key(meetingId: open, senderId: sender)) != nil
        }

        /// A writer that knows no poster yet: every post is looked up.
        func freshWriter() -> ChatBatchWriter {
            ChatBatchWriter(pushDelay: 5, posters: ChatPosters(database: fixture.database), audience: ChatPushAudience(database: fixture.database))
        }

        /// The room's stored rows as (seq, sender, clientMessageId, text), and its lastSeq.
        func stored(in meetingId: String) async throws -> (rows: [String], lastSeq: Int64?, lastMessageAt: Double?) {
            try await fixture.database.reader.read { db in
                let rows = try Row.fetchAll(db, sql: """
                    SELECT seq, senderId, clientMessageId, text FROM chatMessage WHERE roomId = ? AND type = 'message' ORDER BY seq
                    """, arguments: [ChatRoomId.meeting(meetingId)]).map { "\($0[0] as Int64) \($0[1] as String) \($0[2] as String) \($0[3] as String)" }
                let room = try Row.fetchOne(db, sql: "SELECT lastSeq, lastMessageAt FROM chatRoom WHERE id = ?",
                                            arguments: [ChatRoomId.meeting(meetingId)])
                return (rows, room?[0], room?[1])
            }
        }

        /// The message as history reads it back.
        func history(_ meetingId: String, seq: Int64) async throws -> ChatMessage? {
            try await fixture.database.reader.read { db in
                try Row.fetchOne(db, sql: ChatMessage.selection + " WHERE chatMessage.roomId = ? AND chatMessage.seq = ?",
                                 arguments: [ChatRoomId.meeting(meetingId), seq]).map(ChatMessage.init(row:))
            }
        }
    }

    private static func code(_ outcome: Result<ChatWritten, any Error>) -> String {
        switch outcome {
        case .success(let written): return written.posted.map { "\($0.isRepeat ? "repeat" : "new") \($0.message.seq)" } ?? "none"
        case .failure(let error as MeetError): return error.fieldProblems.first.map { "\($0.field):\($0.code)" } ?? error.code
        case .failure(let error): return "unexpected \(error)"
        }
    }

    @Test func oneBatchAnswersEveryKindOfPostAndLeavesNoGap() async throws {
        let rooms = try await Rooms()
        let earlier = try #require(try await rooms.write([rooms.post("bob", "old", text: "first")]).first?.get().posted)
        #expect(earlier.message.seq == 1 && !earlier.isRepeat)

        let outcomes = try await rooms.write([
            rooms.post("bob", "a", text: "good", second: 1),
            rooms.post("eve", "e", text: "outsider", second: 2),
            rooms.post("bob", "old", text: "resent", second: 3),
            rooms.post("cat", "twice", text: "once", second: 4),
            rooms.post("cat", "twice", text: "again", second: 5),
            rooms.post("bob", "ro", to: rooms.closed, text: "too late", second: 6),
            rooms.post("ann", "a", text: "organizer", second: 7),
            rooms.post("bob", "reply", text: "to nothing", replyTo: 99, second: 8),
            rooms.post("cat", "reply", text: "to good", replyTo: 2, second: 9),
        ])
        #expect(outcomes.map(Self.code) == [
            "new 2", "meeting.notMember", "repeat 1", "new 3", "repeat 3", "chatRoom.readOnly", "new 4",
            "replyToSeq:chatMessage.replyNotFound", "new 5",
        ])
        let repeated = try outcomes[2].get()
        #expect(repeated.posted?.message == earlier.message && repeated.appended.isEmpty)
        let twice = try outcomes[4].get()
        #expect(twice.posted?.message == (try outcomes[3].get().posted?.message) && twice.appended.isEmpty)
        // Only new messages are announced, each as stored and as history reads it back.
        for index in [0, 3, 6, 8] {
            let written = try outcomes[index].get()
            let message = try #require(written.posted?.message)
            #expect(written.appended == [message])
            #expect(try await rooms.history(rooms.open, seq: message.seq) == message)
        }

        let open = try await rooms.stored(in: rooms.open)
        #expect(open.rows == ["1 bob old first", "2 bob a good", "3 cat twice once", "4 ann a organizer", "5 cat reply to good"])
        #expect(open.lastSeq == 5)
        #expect(open.lastMessageAt == (MeetingFixture.now + 9).timeIntervalSince1970)
        #expect(try await rooms.stored(in: rooms.closed).rows.isEmpty)

        // The next batch goes on from the seq written back.
        let next = try await rooms.write([rooms.post("eve", "e2", second: 10), rooms.post("cat", "next", second: 11)])
        #expect(next.map(Self.code) == ["meeting.notMember", "new 6"])
    }

    @Test func postsAfterAnotherWriteOfTheBatchKeepTheRoomWithoutGaps() async throws {
        let rooms = try await Rooms()
        #expect(try await rooms.write([rooms.post("ann", "0")]).map(Self.code) == ["new 1"])
        try rooms.fixture.users("dan", "fay")
        for user in ["dan", "fay"] { _ = try await rooms.fixture.service.join(rooms.open, by: user) }
        // The pass over the event log writes the joins' system messages between the posts.
        let outcomes = try await rooms.write([
            rooms.post("bob", "1"), rooms.post("cat", "1"), .events, rooms.post("bob", "2"), rooms.post("bob", "1"),
            rooms.post("cat", "2"),
        ])
        #expect(outcomes.allSatisfy { (try? $0.get()) != nil })
        #expect(try outcomes[4].get().posted?.isRepeat == true)
        let seqs = try await rooms.fixture.database.reader.read { db in
            try Int64.fetchAll(db, sql: "SELECT seq FROM chatMessage WHERE roomId = ? ORDER BY seq",
                               arguments: [ChatRoomId.meeting(rooms.open)])
        }
        #expect(seqs.count > 5)
        #expect(seqs == Array(1...Int64(seqs.count)))
        #expect(try await rooms.stored(in: rooms.open).lastSeq == Int64(seqs.count))
    }

    /// The batch's look-up carries every key to SQLite as JSON: a key a client may choose with
    /// quotes, backslashes or other scripts must neither fail the batch (every post in it) nor
    /// miss a repeat.
    @Test func keysThatNeedEscapingAreLookedUpLikeAnyOther() async throws {
        let rooms = try await Rooms()
        let keys = [#"say "hi""#, #"back\slash \u0041"#, "ключ 🔑", #"\""#]
        let first = try await rooms.write(keys.map { rooms.post("bob", $0) } + [rooms.post("cat", "plain")])
        #expect(first.map(Self.code) == ["new 1", "new 2", "new 3", "new 4", "new 5"])
        let again = try await rooms.write(keys.map { rooms.post("bob", $0, second: 1) }, by: rooms.freshWriter())
        #expect(again.map(Self.code) == ["repeat 1", "repeat 2", "repeat 3", "repeat 4"])
        // The writer that kept bob finds the repeats by their inserts, with the same answers.
        #expect(rooms.isKept("bob"))
        let kept = try await rooms.write(keys.map { rooms.post("bob", $0, second: 2) })
        #expect(kept.map(Self.code) == ["repeat 1", "repeat 2", "repeat 3", "repeat 4"])
    }

    /// A kept poster answers as a look-up would after each change of this process that
    /// concerns it, one at a time (every member posts before each, so all are kept): membership
    /// (left, removed, the user deleted), the sender's name and photo, the meeting cancelled.
    @Test func keptPostersFollowThisProcesssChanges() async throws {
        let rooms = try await Rooms()
        let service = rooms.fixture.service
        let database = rooms.fixture.database
        try rooms.fixture.users("dan", "fay")
        for user in ["dan", "fay"] { _ = try await service.join(rooms.open, by: user) }
        try await rooms.markEventsRead()
        var round = 0
        /// Each of `senders` posts once more, in one batch.
        func everyonePosts(_ senders: [String]) async throws -> [Result<ChatWritten, any Error>] {
            round += 1
            return try await rooms.write(senders.map { rooms.post($0, "\(round)") })
        }
        #expect(try await everyonePosts(["ann", "bob", "cat", "dan", "fay"]).map(Self.code)
            == ["new 1", "new 2", "new 3", "new 4", "new 5"])
        #expect(["ann", "bob", "cat", "dan", "fay"].allSatisfy { rooms.isKept($0) })

        try await service.leave(rooms.open, by: "bob")
        #expect(!rooms.isKept("fay"))
        #expect(try await everyonePosts(["bob", "cat", "dan", "fay"]).map(Self.code)
            == ["meeting.notMember", "new 6", "new 7", "new 8"])
        #expect(rooms.isKept("fay"))
        try await service.removeMember("cat", from: rooms.open, by: "ann")
        #expect(!rooms.isKept("fay"))
        #expect(try await everyonePosts(["cat", "dan", "fay"]).map(Self.code) == ["meeting.notMember", "new 9", "new 10"])
        #expect(rooms.isKept("fay"))
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM user WHERE id = 'dan'") }
        #expect(!rooms.isKept("fay"))
        #expect(try await everyonePosts(["dan", "fay"]).map(Self.code) == ["meeting.notMember", "new 11"])

        #expect(rooms.isKept("fay"))
        try await database.writer.write { db in try db.execute(sql: "UPDATE user SET displayName = 'Fay F.' WHERE id = 'fay'") }
        #expect(!rooms.isKept("fay"))
        #expect(try await everyonePosts(["fay"]).first?.get().posted?.message.senderName == "Fay F.")
        #expect(rooms.isKept("fay"))
        try await database.writer.write { db in
            try db.execute(sql: "INSERT INTO profile (userId, bio, photoId, updatedAt) VALUES ('fay', '', 'photo-1', 0)")
        }
        #expect(!rooms.isKept("fay"))
        #expect(try await everyonePosts(["fay"]).first?.get().posted?.message.senderPhotoId == "photo-1")

        #expect(rooms.isKept("fay"))
        _ = try await service.cancel(rooms.open, by: "ann")
        #expect(!rooms.isKept("fay"))
        #expect(try await everyonePosts(["fay", "ann"]).map(Self.code) == ["chatRoom.readOnly", "chatRoom.readOnly"])
    }

    /// A kept poster's repeat is found by its insert; where the post also queues pushes, in a
    /// savepoint, the repeat must leave no push behind and the next post its push.
    @Test func aKeptPostersRepeatQueuesNoPush() async throws {
        let rooms = try await Rooms()
        #expect(try await rooms.write([rooms.post("bob", "1")]).map(Self.code) == ["new 1"])
        try await rooms.fixture.database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO device (id, userId, pushService, token, locale, environment, createdAt, updatedAt)
                VALUES ('cat-phone', 'cat', 'fcm', 'token', 'en', 'production', 0, 0)
                """)
        }
        // A device is no concern of the kept posters.
        #expect(rooms.isKept("bob"))
        let outcomes = try await rooms.write([rooms.post("bob", "1", second: 1), rooms.post("bob", "2", second: 2)])
        #expect(outcomes.map(Self.code) == ["repeat 1", "new 2"])
        // The push is the new message's (its time), the only one.
        let pushed = try await rooms.fixture.database.reader.read { db in
            try Date.fetchAll(db, sql: "SELECT createdAt FROM notification WHERE userId = 'cat'")
        }
        #expect(pushed == [MeetingFixture.now + 2])
    }

    /// The changes that reach a kept poster by a longer way: a member's block of the organizer
    /// (which ends the membership), the room's new title in its pushes, the meeting deleted.
    @Test func keptPostersFollowABlockARenameAndADeletion() async throws {
        let rooms = try await Rooms()
        let database = rooms.fixture.database
        #expect(try await rooms.write([rooms.post("bob", "1"), rooms.post("cat", "1")]).map(Self.code) == ["new 1", "new 2"])
        #expect(rooms.isKept("bob") && rooms.isKept("cat"))

        try await FriendService(database: database, now: { MeetingFixture.now }).block("ann", by: "cat")
        #expect(!rooms.isKept("bob"))
        let afterBlock = try await rooms.write([rooms.post("cat", "2"), rooms.post("bob", "2")]).map(Self.code)
        // The meeting of an organizer cat blocked is hidden from cat, as is everything of ann's.
        #expect(afterBlock == ["meeting.notFound", "new 3"])

        try await database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO device (id, userId, pushService, token, locale, environment, createdAt, updatedAt)
                VALUES ('ann-phone', 'ann', 'fcm', 'token', 'en', 'production', 0, 0)
                """)
        }
        #expect(rooms.isKept("bob"))
        var rename = MeetingChanges()
        rename.title = "Open air"
        _ = try await rooms.fixture.service.update(rooms.open, with: rename, by: "ann")
        #expect(!rooms.isKept("bob"))
        #expect(try await rooms.write([rooms.post("bob", "3")]).map(Self.code) == ["new 4"])
        let titles = try await database.reader.read { db in
            try String.fetchAll(db, sql: "SELECT arguments ->> '$.title' FROM notification WHERE userId = 'ann' AND kind = ?",
                               arguments: [ChatPushes.kind])
        }
        #expect(titles == ["Open air"])

        #expect(rooms.isKept("bob"))
        try await ModerationService(database: database, now: { MeetingFixture.now })
            .deleteMeeting(rooms.open, reason: "spam", by: .terminal(login: "mod"))
        #expect(!rooms.isKept("bob"))
        #expect(try await rooms.write([rooms.post("bob", "4")]).map(Self.code) == ["meeting.notFound"])
    }

    /// A post with a reply is always looked up, kept sender or not; its repeat answers the
    /// original, whatever the repeat replies to.
    @Test func aRepeatCarryingAReplyAnswersTheOriginal() async throws {
        let rooms = try await Rooms()
        #expect(try await rooms.write([rooms.post("bob", "1"), rooms.post("bob", "2", replyTo: 1)]).map(Self.code)
            == ["new 1", "new 2"])
        #expect(rooms.isKept("bob"))
        let again = try await rooms.write([rooms.post("bob", "2", replyTo: 1), rooms.post("bob", "2", replyTo: 99),
                                           rooms.post("bob", "2")])
        #expect(again.map(Self.code) == ["repeat 2", "repeat 2", "repeat 2"])
        #expect(try again[0].get().posted?.message.replyToSeq == 1)
        #expect(try await rooms.stored(in: rooms.open).rows == ["1 bob 1 hi", "2 bob 2 hi"])
    }

    /// SQLite may roll a whole transaction back on an error (a full disk, an I/O error, no
    /// memory): the posts after it must not be written on their own, outside the batch, where
    /// they would take seqs above the room's stored last one. A trigger that rolls back stands in
    /// for the disk (``Rooms/fillTheDisk()``).
    @Test func aBatchWhoseTransactionSQLiteRolledBackStoresNothing() async throws {
        let rooms = try await Rooms()
        #expect(try await rooms.write([rooms.post("bob", "1"), rooms.post("cat", "1")]).map(Self.code) == ["new 1", "new 2"])
        try await rooms.fillTheDisk()
        let outcomes = try await rooms.write([rooms.post("bob", "2"), rooms.post("cat", "2", text: "full"), rooms.post("bob", "3")])
        #expect(outcomes.allSatisfy { if case .failure = $0 { true } else { false } })
        #expect(try await rooms.stored(in: rooms.open).rows == ["1 bob 1 hi", "2 cat 1 hi"])
        #expect(try await rooms.stored(in: rooms.open).lastSeq == 2)

        try await rooms.freeTheDisk()
        #expect(try await rooms.write([rooms.post("bob", "3"), rooms.post("cat", "2")]).map(Self.code) == ["new 3", "new 4"])
    }

    /// A moderator's redaction by the admin CLI takes the room's next seq in its own
    /// transaction; the batch after it announces it before its own posts, so that nobody sees a
    /// later seq first (and resumes past the redaction).
    @Test func aRedactionByAnotherConnectionIsAnnouncedBeforeTheNextPosts() async throws {
        let rooms = try await Rooms()
        let posted = try await rooms.write([rooms.post("bob", "1"), rooms.post("cat", "1")])
        let target = try #require(try posted[0].get().posted?.message.id)
        try await rooms.redact(target, byAnotherConnection: true)
        let batch = try await rooms.batch([rooms.post("bob", "2")])
        #expect(batch.events.appended.map { "\($0.seq) \($0.type.rawValue)" } == ["3 deleted"])
        #expect(batch.outcomes.map(Self.code) == ["new 4"])
    }

    /// The same for one recorded by this process (the `/admin` routes store it outside the
    /// group commit too): the commit queue says so, and the batch reads the events first.
    @Test func aRedactionThisProcessRecordedIsAnnouncedBeforeTheNextPosts() async throws {
        let rooms = try await Rooms()
        let posted = try await rooms.write([rooms.post("bob", "1")])
        let target = try #require(try posted[0].get().posted?.message.id)
        try await rooms.redact(target, byAnotherConnection: false)
        let writer = rooms.writer
        let batch = try await rooms.fixture.database.writer.writeWithoutTransaction { db in
            writer.write([rooms.post("cat", "1")], eventsRecorded: true, in: db)
        }
        #expect(batch.events.appended.map { "\($0.seq) \($0.type.rawValue)" } == ["2 deleted"])
        #expect(batch.outcomes.map(Self.code) == ["new 3"])
    }

    /// A batch that was to read the events first and failed as a whole (SQLite rolled it back)
    /// spent what asked for it, another connection's commit or this process's flag: the next
    /// batch still reads them first, or the redaction would be announced after its posts.
    @Test(arguments: [true, false]) func aRedactionStaysFirstAfterABatchThatFailedWhole(byAnotherConnection: Bool) async throws {
        let rooms = try await Rooms()
        let posted = try await rooms.write([rooms.post("bob", "1")])
        let target = try #require(try posted[0].get().posted?.message.id)
        try await rooms.redact(target, byAnotherConnection: byAnotherConnection)
        let writer = rooms.writer
        try await rooms.fillTheDisk()
        let failed = try await rooms.fixture.database.writer.writeWithoutTransaction { db in
            writer.write([rooms.post("cat", "1", text: "full")], eventsRecorded: !byAnotherConnection, in: db)
        }
        #expect(failed.events.appended.isEmpty)
        #expect(failed.outcomes.map(Self.code).allSatisfy { $0.hasPrefix("unexpected") })
        try await rooms.freeTheDisk()

        let batch = try await rooms.batch([rooms.post("cat", "1")])
        #expect(batch.events.appended.map { "\($0.seq) \($0.type.rawValue)" } == ["2 deleted"])
        #expect(batch.outcomes.map(Self.code) == ["new 3"])
    }

    /// Another process's commit (the admin CLI) is seen by the next batch, kept posters or not.
    @Test func keptPostersFollowAnotherConnectionsCommits() async throws {
        let rooms = try await Rooms()
        #expect(try await rooms.write([rooms.post("bob", "1"), rooms.post("cat", "1")]).map(Self.code) == ["new 1", "new 2"])
        #expect(rooms.isKept("bob") && rooms.isKept("cat"))
        let other = try DatabaseQueue(path: rooms.fixture.folder.url.appendingPathComponent("db.sqlite").path)
        try await other.write { db in
            try db.execute(sql: "DELETE FROM meetingMember WHERE meetingId = ? AND userId = 'bob'", arguments: [rooms.open])
            try db.execute(sql: "UPDATE user SET displayName = 'Cat C.' WHERE id = 'cat'")
        }
        let outcomes = try await rooms.write([rooms.post("bob", "2"), rooms.post("cat", "2")])
        #expect(outcomes.map(Self.code) == ["meeting.notMember", "new 3"])
        #expect(try outcomes[1].get().posted?.message.senderName == "Cat C.")
    }

    /// Who would get a room's pushes is kept between batches while nothing could change it; a
    /// device another connection adds is seen by the next batch, and a batch that queues a push
    /// keeps nothing of what it read.
    @Test func aRoomsPushAudienceIsKeptUntilACommitCouldChangeIt() async throws {
        let rooms = try await Rooms()
        #expect(try await rooms.write([rooms.post("bob", "1")]).map(Self.code) == ["new 1"])
        #expect(rooms.writer.audience.members(of: rooms.open) == [])
        let other = try DatabaseQueue(path: rooms.fixture.folder.url.appendingPathComponent("db.sqlite").path)
        try await other.write { db in
            try db.execute(sql: """
                INSERT INTO device (id, userId, pushService, token, locale, environment, createdAt, updatedAt)
                VALUES ('cat-phone', 'cat', 'fcm', 'token', 'en', 'production', 0, 0)
                """)
        }
        #expect(try await rooms.write([rooms.post("bob", "2", second: 1)]).map(Self.code) == ["new 2"])
        let pushed = try await rooms.fixture.database.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM notification WHERE userId = 'cat'")
        }
        #expect(pushed == 1)
        #expect(rooms.writer.audience.members(of: rooms.open) == nil)
        // Read again, with cat's push waiting: nobody else has a device.
        #expect(try await rooms.write([rooms.post("bob", "3", second: 2)]).map(Self.code) == ["new 3"])
        #expect(rooms.writer.audience.members(of: rooms.open) == [])
    }
}
