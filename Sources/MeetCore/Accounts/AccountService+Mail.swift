import Foundation
import GRDB

/// The account mails anyone may ask for by address: the answer never says whether the address
/// has an account, and the mail throttle bounds how often each goes out.
extension AccountService {
    /// Queues a reset mail if the address belongs to an account and the throttle lets it go;
    /// says nothing either way.
    public func requestPasswordReset(email rawEmail: String, clientAddress: String?) async throws {
        try await queueMail(.resetPassword, to: RegistrationForm.normalizedEmail(rawEmail), from: clientAddress) { user in !user.banned }
    }

    /// Queues a reset mail to the user with this id or address because a moderator asks (the
    /// owner lost access, say): no throttle, an audit line, and a refusal rather than silence
    /// for unknown (`user.notFound`) or banned (`account.banned`) users. Answers the address mailed.
    public func sendPasswordReset(to reference: String, by moderator: Moderator) async throws -> String {
        let issuedAt = now()
        return try await database.writer.write { db in
            let found = try ModerationService.find(reference, in: db)
            guard !found.banned else { throw MeetError("account.banned", status: 403) }
            guard let user = try User.fetchOne(db, key: found.id) else { throw MeetError("user.notFound", status: 404) }
            try AccountMailOutbox.enqueue(.resetPassword, to: user.id, at: issuedAt, in: db)
            try AuditLog.record("user.resetPassword", targetType: "user", targetId: user.id, by: moderator.name, in: db, at: issuedAt)
            return user.email
        }
    }

    /// Queues a new confirmation mail if the address belongs to an account not yet confirmed
    /// and the throttle lets it go; says nothing either way.
    public func resendConfirmation(email rawEmail: String, clientAddress: String?) async throws {
        try await queueMail(.confirmEmail, to: RegistrationForm.normalizedEmail(rawEmail), from: clientAddress) { user in
            !user.banned && !user.isConfirmed
        }
    }

    /// Queues the account mail of `purpose` to the account at `email`, when `wanted` says one
    /// is due and the throttle admits it; all in one transaction, so a held-back mail leaves no row.
    private func queueMail(
        _ purpose: AccountTokenPurpose, to email: String, from clientAddress: String?, wanted: @escaping @Sendable (User) -> Bool
    ) async throws {
        let refusal = try await database.writer.write { [now, mailThrottle] db -> MailThrottle.Refusal? in
            guard let user = try User.filter(Column("email") == email).fetchOne(db), wanted(user) else { return nil }
            if let refusal = try mailThrottle.admit(to: email, from: clientAddress, at: now(), in: db) { return refusal }
            try AccountMailOutbox.enqueue(purpose, to: user.id, at: now(), in: db)
            return nil
        }
        if let refusal { mailHeldBack(refusal) }
    }

    /// Thrown inside a registration's write to roll the account back when its client address is over the limit.
    struct MailHeldBack: Error {
        let refusal: MailThrottle.Refusal
    }

    /// The answer to a registration over its client address's mail limit.
    static func tooManyMails(_ refusal: MailThrottle.Refusal) -> MeetError {
        let seconds = String(Int(refusal.retryAfter.rounded(.up)))
        return MeetError("mail.tooMany", status: 429, arguments: ["seconds": seconds], headers: ["Retry-After": seconds])
    }
}
