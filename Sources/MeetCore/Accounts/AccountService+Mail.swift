import Foundation
import GRDB

/// The account mails anyone may ask for by address: the answer never says whether the address
/// has an account, and the mail throttle bounds how often each goes out.
extension AccountService {
    /// Mails a reset token if the address belongs to an account and the throttle lets it go;
    /// says nothing either way.
    public func requestPasswordReset(email rawEmail: String, clientAddress: String?) async throws {
        let email = RegistrationForm.normalizedEmail(rawEmail)
        let token = RandomToken.secret()
        let issuedAt = now()
        let user = try await mailable(email, from: clientAddress) { user, db in
            guard !user.banned else { return false }
            try Self.issue(token, .resetPassword, for: user.id, at: issuedAt, in: db)
            return true
        }
        if let user {
            try await mailer.send(mails.passwordReset(to: user, token: token))
        }
    }

    /// Mails a reset token to the user with this id or address because a moderator asks (the
    /// owner lost access, say): no throttle, an audit line, and a refusal rather than silence
    /// for unknown (`user.notFound`) or banned (`account.banned`) users. Answers the address mailed.
    public func sendPasswordReset(to reference: String, by moderator: Moderator) async throws -> String {
        let token = RandomToken.secret()
        let issuedAt = now()
        let user = try await database.writer.write { db in
            let found = try ModerationService.find(reference, in: db)
            guard !found.banned else { throw MeetError("account.banned", status: 403) }
            guard let user = try User.fetchOne(db, key: found.id) else { throw MeetError("user.notFound", status: 404) }
            try Self.issue(token, .resetPassword, for: user.id, at: issuedAt, in: db)
            try AuditLog.record("user.resetPassword", targetType: "user", targetId: user.id, by: moderator.name, in: db, at: issuedAt)
            return user
        }
        try await mailer.send(mails.passwordReset(to: user, token: token))
        return user.email
    }

    /// Mails a new confirmation token if the address belongs to an account not yet confirmed
    /// and the throttle lets it go; says nothing either way.
    public func resendConfirmation(email rawEmail: String, clientAddress: String?) async throws {
        let email = RegistrationForm.normalizedEmail(rawEmail)
        let token = RandomToken.secret()
        let issuedAt = now()
        let user = try await mailable(email, from: clientAddress) { user, db in
            guard !user.banned, !user.isConfirmed else { return false }
            try Self.issue(token, .confirmEmail, for: user.id, at: issuedAt, in: db)
            return true
        }
        if let user {
            try await mailer.send(mails.confirmation(to: user, token: token))
        }
    }

    /// The user to mail at `email`, when `wanted` (which issues the token) says a mail is due
    /// and the throttle admits it; all in one transaction, so a held-back mail leaves no token.
    private func mailable(
        _ email: String, from clientAddress: String?, _ wanted: @escaping @Sendable (User, Database) throws -> Bool
    ) async throws -> User? {
        do {
            return try await database.writer.write { [now, mailThrottle] db -> User? in
                guard let user = try User.filter(Column("email") == email).fetchOne(db), try wanted(user, db) else { return nil }
                if let refusal = try mailThrottle.admit(to: email, from: clientAddress, at: now(), in: db) {
                    throw MailHeldBack(refusal: refusal)  // rolls the token back
                }
                return user
            }
        } catch let heldBack as MailHeldBack {
            mailHeldBack(heldBack.refusal)
            return nil
        }
    }


    /// Thrown inside a write to roll back what a held-back mail would have carried.
    struct MailHeldBack: Error {
        let refusal: MailThrottle.Refusal
    }

    /// The answer to a registration over its client address's mail limit.
    static func tooManyMails(_ refusal: MailThrottle.Refusal) -> MeetError {
        let seconds = String(Int(refusal.retryAfter.rounded(.up)))
        return MeetError("mail.tooMany", status: 429, arguments: ["seconds": seconds], headers: ["Retry-After": seconds])
    }
}
