import Foundation
import GRDB

/// What a block between two users does to the meetings they share. Blocking is absolute
/// (``Blocks``), so neither may reach the other through a meeting any more:
///
/// - pending invitations between them end: one the other sent, and one to a meeting the other
///   organizes (an invitation carries the organizer's meeting as much as the inviter's word);
/// - a member of a meeting the other organizes stops being a member, whoever blocked whom:
///   being blocked by the organizer removes you, blocking the organizer is leaving. Both are
///   recorded as `meeting.memberRemoved` about the member and addressed to nobody, so the
///   chat room and live sessions let go of them while no notification reveals the block.
///
/// Members of the same meeting who block each other, neither organizing it, both stay: the
/// meeting is its organizer's to keep together.
enum MeetingBlocks {
    /// Applies a new block between `blocker` and `blocked`, inside the transaction that records it.
    static func separate(_ blocker: String, _ blocked: String, at time: Date, in db: Database) throws {
        try db.execute(sql: """
            DELETE FROM invitation
            WHERE status = 'pending'
              AND ((inviteeId = ?1 AND (inviterId = ?2 OR meetingId IN (SELECT id FROM meeting WHERE organizerId = ?2)))
                OR (inviteeId = ?2 AND (inviterId = ?1 OR meetingId IN (SELECT id FROM meeting WHERE organizerId = ?1))))
            """, arguments: [blocker, blocked])
        let memberships = try Row.fetchAll(db, sql: """
            SELECT member.meetingId, member.userId FROM meetingMember AS member JOIN meeting ON meeting.id = member.meetingId
            WHERE member.role = 'member'
              AND ((member.userId = ?1 AND meeting.organizerId = ?2) OR (member.userId = ?2 AND meeting.organizerId = ?1))
            """, arguments: [blocker, blocked])
        for row in memberships {
            let meetingId: String = row["meetingId"]
            let memberId: String = row["userId"]
            try MeetingMemberRecord.deleteOne(db, key: ["meetingId": meetingId, "userId": memberId])
            guard let meeting = try MeetingRecord.filter(Column("id") == meetingId).fetchOne(db) else { continue }
            try DomainEvent.meeting(.meetingMemberRemoved, meeting, actor: blocker, user: memberId, recipients: [])
                .record(in: db, at: time)
        }
    }
}
