import GRDB

/// Which notifications a user also gets by e-mail. Each topic is on until the user turns it off.
public struct EmailSettings: Codable, Sendable, Equatable {
    /// Someone invites them to a meeting.
    public var invitations: Bool
    /// A meeting they belong to moves (its time or place changes) or is cancelled.
    public var meetingChanges: Bool

    /// Settings with the given topics on; every topic is on by default.
    public init(invitations: Bool = true, meetingChanges: Bool = true) {
        self.invitations = invitations
        self.meetingChanges = meetingChanges
    }

    /// A kind of mail; its raw value names it in `emailOptOut`.
    enum Topic: String, CaseIterable {
        case invitations
        case meetingChanges

        /// The topic of the mail a notification kind makes, nil for kinds that are never mailed.
        init?(kind: String) {
            switch kind {
            case DomainEvent.Kind.invitationSent.rawValue: self = .invitations
            case DomainEvent.Kind.meetingCancelled.rawValue, DomainEvent.Kind.meetingEdited.rawValue: self = .meetingChanges
            default: return nil
            }
        }
    }

    func isOn(_ topic: Topic) -> Bool {
        switch topic {
        case .invitations: invitations
        case .meetingChanges: meetingChanges
        }
    }

    /// `userId`'s settings inside a transaction.
    static func of(_ userId: String, _ db: Database) throws -> EmailSettings {
        let off = Set(try String.fetchAll(db, sql: "SELECT topic FROM emailOptOut WHERE userId = ?", arguments: [userId]))
        return EmailSettings(invitations: !off.contains(Topic.invitations.rawValue),
                             meetingChanges: !off.contains(Topic.meetingChanges.rawValue))
    }

    /// Stores these settings as `userId`'s.
    func save(for userId: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM emailOptOut WHERE userId = ?", arguments: [userId])
        for topic in Topic.allCases where !isOn(topic) {
            try db.execute(sql: "INSERT INTO emailOptOut (userId, topic) VALUES (?, ?)", arguments: [userId, topic.rawValue])
        }
    }
}
