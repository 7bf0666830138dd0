import Foundation
import GRDB

/// Registration, confirmation, sessions and password resets.
///
/// Secrets (bearer, confirmation and reset tokens) are handed out once and stored only as
/// SHA-256 hashes; passwords only as scrypt hashes.
public struct AccountService: Sendable {
    /// What a successful login hands the client.
    public struct Session: Sendable {
        /// The bearer token; only its hash is stored, so it is shown this once.
        public var accessToken: String
        /// When the token stops working; after it the client logs in again.
        public var expiresAt: Date
        /// The signed-in account.
        public var user: User
    }

    /// Who a valid bearer token belongs to, and which token it was (for logout).
    public struct Authentication: Sendable, Equatable {
        /// The signed-in user.
        public var userId: String
        /// Hash of the bearer token, naming the stored token without the secret.
        public var tokenHash: Data
    }

    /// How long a bearer token lives after login.
    public static let sessionLifetime: TimeInterval = 30 * 24 * 3600
    /// `lastUsedAt` is refreshed at most this often, and the refreshes of all sessions are
    /// written together at most this often (``TokenLastUses``), so reads do not turn into writes.
    static let lastUsedResolution: TimeInterval = 60

    let database: AppDatabase
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    let mailThrottle: MailThrottle
    /// Told of every mail the throttle holds back (the server counts them in its metrics).
    let mailHeldBack: @Sendable (MailThrottle.Refusal) -> Void
    let lastUses = TokenLastUses(interval: lastUsedResolution)
    let now: @Sendable () -> Date
    /// Told whenever sign-ins end (logout, password reset), so that open STOMP sessions close too.
    public let liveSessions = LiveSessions()

    /// Makes the service; `now` dates sessions, tokens and queued mails (the mail dispatcher sends them).
    public init(
        database: AppDatabase,
        hasher: PasswordHasher = .init(),
        throttle: LoginThrottle = .init(),
        mailThrottle: MailThrottle = .init(),
        mailHeldBack: @escaping @Sendable (MailThrottle.Refusal) -> Void = { _ in },
        now: @escaping @Sendable () -> Date
    ) {
        self.database = database
        self.hasher = hasher
        self.throttle = throttle
        self.mailThrottle = mailThrottle
        self.mailHeldBack = mailHeldBack
        self.now = now
    }

    /// Creates an unconfirmed account and queues its confirmation mail (the mail dispatcher
    /// sends it: the request never waits on a mail server), unless the mail throttle holds it back: over the limit of the client's address (`clientAddress`) the
    /// registration is refused with 429 `mail.tooMany`; over the limit of the address
    /// registered, the account is created without a mail (it can be asked for again later).
    public func register(email: String, password: String, displayName: String, locale: String, clientAddress: String?) async throws -> User {
        let form = try RegistrationForm(email: email, password: password, displayName: displayName, locale: locale)
        let passwordHash = try await hasher.hash(password)
        let write = { @Sendable [now, mailThrottle] (db: Database) throws -> (User, MailThrottle.Refusal?) in
            let user = User(
                id: RandomToken.id(), email: form.email, displayName: form.displayName, locale: form.locale,
                passwordHash: passwordHash, emailConfirmedAt: nil, banned: false, createdAt: now())
            do {
                try user.insert(db)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw MeetError("account.emailTaken", status: 409)
            }
            let refusal = try mailThrottle.admit(to: user.email, from: clientAddress, at: now(), in: db)
            if let refusal, refusal.limit == .client { throw MailHeldBack(refusal: refusal) }  // no account either
            if refusal == nil { try AccountMailOutbox.enqueue(.confirmEmail, to: user.id, at: now(), in: db) }
            return (user, refusal)
        }
        let user: User, refusal: MailThrottle.Refusal?
        do {
            (user, refusal) = try await database.writer.write(write)
        } catch let heldBack as MailHeldBack {
            mailHeldBack(heldBack.refusal)
            throw Self.tooManyMails(heldBack.refusal)
        }
        if let refusal { mailHeldBack(refusal) }
        return user
    }

    /// Marks the address confirmed; the token works once.
    public func confirmEmail(token: String) async throws -> User {
        try await database.writer.write { [now] db in
            let accountToken = try Self.redeem(token, .confirmEmail, at: now(), in: db)
            guard var user = try User.fetchOne(db, key: accountToken.userId) else { throw Self.invalidToken }
            if user.emailConfirmedAt == nil {
                user.emailConfirmedAt = now()
                try user.update(db)
            }
            return user
        }
    }

    /// Checks the password and opens a session. Refused while throttled, for unconfirmed
    /// addresses and for banned users.
    public func login(email rawEmail: String, password: String, clientAddress: String?) async throws -> Session {
        let email = RegistrationForm.normalizedEmail(rawEmail)
        if let wait = throttle.retryAfter(account: email, address: clientAddress, now: now()) {
            throw MeetError(
                "auth.tooManyAttempts", status: 429, arguments: ["seconds": String(Int(wait.rounded(.up)))],
                headers: ["Retry-After": String(Int(wait.rounded(.up)))])
        }
        let user = try await database.reader.read { db in
            try User.filter(Column("email") == email).fetchOne(db)
        }
        // An unknown address costs the same scrypt run as a wrong password.
        let matches = try await hasher.verify(password, against: user?.passwordHash ?? hasher.placeholderHash)
        guard let user, matches else {
            throttle.recordFailure(account: email, address: clientAddress, now: now())
            throw MeetError("auth.invalidCredentials", status: 401)
        }
        throttle.recordSuccess(account: email)
        // A temporary ban that has run out is lifted here, at once, not at the next sweep.
        if user.banned, !(try await liftBanIfLapsed(user.id, at: now())) { throw MeetError("account.banned", status: 403) }
        if !user.isConfirmed { throw MeetError("auth.emailNotConfirmed", status: 403) }
        let rehash = hasher.needsRehash(user.passwordHash) ? try await hasher.hash(password) : nil
        let issuedAt = now()
        let secret = try await database.writer.write { db in
            let secret = try Self.openSession(for: user.id, at: issuedAt, in: db)
            // Sweeping the user's expired sessions here keeps the table from growing forever.
            try AccessToken.filter(Column("userId") == user.id && Column("expiresAt") <= issuedAt).deleteAll(db)
            if let rehash {
                try User.filter(key: user.id).updateAll(db, Column("passwordHash").set(to: rehash))
            }
            return secret
        }
        var signedIn = user
        signedIn.banned = false  // what a lapsed ban's lifting left
        return Session(accessToken: secret, expiresAt: issuedAt.addingTimeInterval(Self.sessionLifetime), user: signedIn)
    }

    /// Stores a new bearer token for `userId`, valid for `sessionLifetime` from `issuedAt`,
    /// and returns its secret, the only copy. It checks nothing: login calls it once the
    /// password is verified, and tools that write users straight into a database (the HTTP
    /// feed benchmark's seeder) call it to sign them in the one way the server accepts.
    public static func openSession(for userId: String, at issuedAt: Date, in db: Database) throws -> String {
        let secret = RandomToken.secret()
        try AccessToken(
            tokenHash: RandomToken.hash(secret), userId: userId, createdAt: issuedAt,
            expiresAt: issuedAt.addingTimeInterval(sessionLifetime), lastUsedAt: issuedAt
        ).insert(db)
        return secret
    }

    /// The user a bearer token stands for, or `nil` if it is unknown, expired, revoked or
    /// its user is banned.
    public func authenticate(bearer secret: String) async throws -> Authentication? {
        let check = try await database.quickRead { db in try checkToken(bearer: secret, in: db) }
        guard let check else { return nil }
        return try await noteUse(of: check)
    }

    /// A bearer token found valid inside a read, whose use is still to be noted.
    public struct TokenCheck: Sendable {
        /// Whom the token stands for.
        public var authentication: Authentication
        var lastUsedAt: Date
        var checkedAt: Date
        /// When the token stops working (``RoomGrants`` remembers a grant no longer than that).
        var expiresAt: Date
    }

    /// The first half of `authenticate(bearer:)`, inside a read the caller already holds, so
    /// that a route reading anyway checks its token without a second hop to a reader; `nil`
    /// if the token is refused. Hand the check to `noteUse(of:)` once the read is over.
    public func checkToken(bearer secret: String, in db: Database) throws -> TokenCheck? {
        let tokenHash = RandomToken.hash(secret)
        let now = now()
        // Every authenticated request asks this, so the statement is prepared once per
        // connection rather than built from the query interface each time.
        let statement = try db.cachedStatement(sql: """
            SELECT accessToken.userId, accessToken.lastUsedAt, accessToken.expiresAt FROM accessToken
            JOIN user ON user.id = accessToken.userId AND NOT user.banned
            WHERE accessToken.tokenHash = ?
            """)
        // The expiry is compared here, not in SQL: binding `now` formatted it with Foundation's
        // DateFormatter, 2 % of a feed request (issue 21). Same answer: stored times have whole
        // milliseconds, so `expiresAt > now` holds when it held against `now` written to the
        // millisecond (SQL compared the texts).
        guard let row = try Row.fetchOne(statement, arguments: [tokenHash]) else { return nil }
        let check = TokenCheck(authentication: Authentication(userId: row[0], tokenHash: tokenHash), lastUsedAt: row[1], checkedAt: now,
                               expiresAt: row[2])
        return check.expiresAt > now ? check : nil
    }

    /// The second half of `authenticate(bearer:)`: refreshes the session's `lastUsedAt` when
    /// it is due (``TokenLastUses`` batches the writes), and returns whom the token stands for.
    public func noteUse(of check: TokenCheck) async throws -> Authentication {
        if check.checkedAt.timeIntervalSince(check.lastUsedAt) >= Self.lastUsedResolution,
           let refreshes = lastUses.note(check.authentication.tokenHash, usedAt: check.checkedAt) {
            try await database.writer.write { db in try TokenLastUses.write(refreshes, in: db) }
        }
        return check.authentication
    }

    /// Revokes one session.
    public func logout(_ authentication: Authentication) async throws {
        _ = try await database.writer.write { db in
            try AccessToken.deleteOne(db, key: authentication.tokenHash)
        }
        liveSessions.end(userId: authentication.userId, tokenHash: authentication.tokenHash, reason: "signed out")
    }

    /// Sets a new password with a mailed reset token and ends every session of the user.
    public func resetPassword(token: String, newPassword: String) async throws {
        if let problem = PasswordPolicy.problem(with: newPassword, field: "newPassword") {
            throw MeetError.invalidFields([problem])
        }
        let passwordHash = try await hasher.hash(newPassword)
        let userId = try await database.writer.write { [now] db in
            let accountToken = try Self.redeem(token, .resetPassword, at: now(), in: db)
            guard var user = try User.fetchOne(db, key: accountToken.userId) else { throw Self.invalidToken }
            user.passwordHash = passwordHash
            // Holding the mailbox proves the address as well as confirmation would.
            user.emailConfirmedAt = user.emailConfirmedAt ?? now()
            try user.update(db)
            try AccessToken.filter(Column("userId") == user.id).deleteAll(db)
            try AccountToken
                .filter(Column("userId") == user.id && Column("purpose") == AccountToken.Purpose.resetPassword.rawValue)
                .filter(Column("usedAt") == nil)
                .updateAll(db, Column("usedAt").set(to: now()))
            return user.id
        }
        liveSessions.endAll(ofUser: userId, reason: "the password was reset")
    }

    /// The user with `id`.
    public func user(id: String) async throws -> User {
        let user = try await database.quickRead { db in try User.fetchOne(db, key: id) }
        guard let user else { throw MeetError("user.notFound", status: 404) }
        return user
    }

    static let invalidToken = MeetError("token.invalid", status: 400)

    static func issue(_ secret: String, _ purpose: AccountToken.Purpose, for userId: String, at now: Date, in db: Database) throws {
        try AccountToken.filter(Column("userId") == userId && Column("expiresAt") <= now).deleteAll(db)
        try AccountToken(
            tokenHash: RandomToken.hash(secret), userId: userId, purpose: purpose, createdAt: now,
            expiresAt: now.addingTimeInterval(purpose.lifetime), usedAt: nil
        ).insert(db)
    }

    /// Marks a mailed token used, refusing unknown, used and expired ones.
    private static func redeem(_ secret: String, _ purpose: AccountToken.Purpose, at now: Date, in db: Database) throws -> AccountToken {
        guard var token = try AccountToken.fetchOne(db, key: RandomToken.hash(secret)), token.purpose == purpose else {
            throw invalidToken
        }
        if token.usedAt != nil { throw MeetError("token.used", status: 410) }
        if token.expiresAt <= now { throw MeetError("token.expired", status: 410) }
        token.usedAt = now
        try token.update(db)
        return token
    }
}
