import Foundation
import GRDB
import Synchronization
import Testing
@testable import MeetCore

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 2_000_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// Plays the mail dispatcher: claims the queued account mails and keeps the tokens they carried.
final class MailedTokens: Sendable {
    let queue: MailQueue
    private let sent = Mutex<[AccountMail]>([])

    init(_ queue: MailQueue) { self.queue = queue }

    /// Sends what is queued, then answers the token of the last account mail for `purpose`.
    func token(_ purpose: AccountTokenPurpose) async throws -> String? {
        for delivery in try await queue.claim(limit: 100) {
            if case .account(let mail) = delivery.content { sent.withLock { $0.append(mail) } }
            try await queue.record(delivery, .sent)
        }
        return sent.withLock { $0.last { $0.purpose == purpose }?.token }
    }
}

@Suite("Account service")
struct AccountServiceTests {
    let clock = TestClock()
    let mailed: MailedTokens
    let folder: TemporaryFolder
    let database: AppDatabase
    let accounts: AccountService

    init() throws {
        folder = try TemporaryFolder("meetcore-accounts-")
        database = try AppDatabase(dataDirectory: folder.url.path)
        accounts = AccountService(database: database, hasher: PasswordHasher(parameters: .init(logRounds: 4)), now: { [clock] in clock.now })
        mailed = MailedTokens(MailQueue(database: database, now: { [clock] in clock.now }))
    }

    func registered(_ email: String = "a@example.org") async throws -> User {
        try await accounts.register(email: email, password: "correct horse battery", displayName: "A", locale: "uk", clientAddress: nil)
    }

    @Test func confirmationTokenExpiresAfterADay() async throws {
        _ = try await registered()
        let token = try #require(await mailed.token(.confirmEmail))
        clock.advance(by: 24 * 3600 + 1)
        await #expect(throws: MeetError("token.expired", status: 410)) { try await accounts.confirmEmail(token: token) }
    }

    @Test func resetTokenExpiresAfterAnHour() async throws {
        _ = try await registered()
        try await accounts.requestPasswordReset(email: "a@example.org", clientAddress: nil)
        let token = try #require(await mailed.token(.resetPassword))
        clock.advance(by: 3600 + 1)
        await #expect(throws: MeetError("token.expired", status: 410)) {
            try await accounts.resetPassword(token: token, newPassword: "a brand new secret")
        }
    }

    @Test func queuedAccountMailsHoldNoTokenAndEachSendingMakesAFreshOne() async throws {
        let user = try await registered()
        // The row names whom and what for; no column could hold a secret.
        let queued = try await database.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT userId, purpose, notificationId FROM mailJob").map { [$0[0], $0[1], $0[2]] as [String?] }
        }
        #expect(queued == [[user.id, "confirmEmail", nil]])
        #expect(try await database.reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM accountToken") } == 0)
        let queue = MailQueue(database: database, now: { [clock] in clock.now })
        let first = try await queue.claim(limit: 8)
        // The process dies before recording; the restart sends the mail again with a new token.
        #expect(try await queue.requeueInterrupted() == 1)
        let again = try await queue.claim(limit: 8)
        guard case .account(let firstMail) = first.first?.content, case .account(let secondMail) = again.first?.content else {
            Issue.record("no account mail claimed")
            return
        }
        #expect(firstMail.purpose == .confirmEmail && again[0].recipient.id == user.id && firstMail.token != secondMail.token)
        let stored = try await database.reader.read { db in try Data.fetchAll(db, sql: "SELECT tokenHash FROM accountToken ORDER BY createdAt") }
        #expect(Set(stored) == [RandomToken.hash(firstMail.token), RandomToken.hash(secondMail.token)])
        try await queue.record(again[0], .sent)
        #expect(try await database.reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM mailJob") } == 0)
        // Confirmed meanwhile: a resent confirmation still queued is dropped, not sent.
        try await accounts.resendConfirmation(email: user.email, clientAddress: nil)
        _ = try await accounts.confirmEmail(token: secondMail.token)
        #expect(try await queue.claim(limit: 8).isEmpty)
        #expect(try await database.reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM mailJob") } == 0)
    }

    @Test func tokensAreStoredOnlyAsHashes() async throws {
        _ = try await registered()
        let mailed = try #require(await mailed.token(.confirmEmail))
        let stored = try await database.reader.read { db in try Data.fetchAll(db, sql: "SELECT tokenHash FROM accountToken") }
        #expect(stored == [RandomToken.hash(mailed)])
        #expect(stored.first?.count == 32)
    }

    @Test func sessionsExpireAndTrackLastUse() async throws {
        let user = try await registered()
        _ = try await accounts.confirmEmail(token: try #require(await mailed.token(.confirmEmail)))
        let session = try await accounts.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        #expect(session.user.id == user.id)
        clock.advance(by: 3600)
        #expect(try await accounts.authenticate(bearer: session.accessToken)?.userId == user.id)
        let lastUsed = try await database.reader.read { db in try Date.fetchOne(db, sql: "SELECT lastUsedAt FROM accessToken") }
        #expect(lastUsed == clock.now)
        clock.advance(by: AccountService.sessionLifetime)
        #expect(try await accounts.authenticate(bearer: session.accessToken) == nil)
    }

    @Test func lastUseRefreshesOfAllSessionsAreWrittenTogetherAtMostOncePerResolution() async throws {
        _ = try await registered()
        _ = try await accounts.confirmEmail(token: try #require(await mailed.token(.confirmEmail)))
        let loggedInAt = clock.now
        let first = try await accounts.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        let second = try await accounts.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        func lastUsed(_ session: AccountService.Session) async throws -> Date? {
            try await database.reader.read { db in
                try Date.fetchOne(db, sql: "SELECT lastUsedAt FROM accessToken WHERE tokenHash = ?",
                                  arguments: [RandomToken.hash(session.accessToken)])
            }
        }

        clock.advance(by: 3600)
        let firstUse = clock.now
        #expect(try await accounts.authenticate(bearer: first.accessToken) != nil)
        #expect(try await lastUsed(first) == firstUse)  // nothing written before: written at once

        clock.advance(by: 1)
        let secondUse = clock.now
        #expect(try await accounts.authenticate(bearer: second.accessToken) != nil)
        #expect(try await lastUsed(second) == loggedInAt)  // a write a second ago: kept for the next one

        clock.advance(by: AccountService.lastUsedResolution)
        #expect(try await accounts.authenticate(bearer: first.accessToken) != nil)
        #expect(try await lastUsed(first) == clock.now)
        #expect(try await lastUsed(second) == secondUse)  // written with it

        // A pending refresh never brings back a revoked session.
        clock.advance(by: 1)
        #expect(try await accounts.authenticate(bearer: second.accessToken) != nil)
        try await accounts.logout(AccountService.Authentication(userId: second.user.id, tokenHash: RandomToken.hash(second.accessToken)))
        clock.advance(by: AccountService.lastUsedResolution)
        #expect(try await accounts.authenticate(bearer: first.accessToken) != nil)
        #expect(try await accounts.authenticate(bearer: second.accessToken) == nil)
        #expect(try await lastUsed(second) == nil)
    }

    @Test func aSessionOpenedDirectlyAuthenticatesLikeALoginAndStoresOnlyTheHash() async throws {
        let user = try await registered()
        let secret = try await database.writer.write { [clock] db in
            try AccountService.openSession(for: user.id, at: clock.now, in: db)
        }
        #expect(try await accounts.authenticate(bearer: secret)?.userId == user.id)
        let stored = try await database.reader.read { db in try Data.fetchAll(db, sql: "SELECT tokenHash FROM accessToken") }
        #expect(stored == [RandomToken.hash(secret)])
        clock.advance(by: AccountService.sessionLifetime)
        #expect(try await accounts.authenticate(bearer: secret) == nil)
    }

    @Test func expiredSessionsAreSweptAtTheNextLogin() async throws {
        _ = try await registered()
        _ = try await accounts.confirmEmail(token: try #require(await mailed.token(.confirmEmail)))
        _ = try await accounts.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        clock.advance(by: AccountService.sessionLifetime + 1)
        _ = try await accounts.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        let sessions = try await database.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM accessToken") }
        #expect(sessions == 1)
    }

    @Test func banningStopsTokensAtOnce() async throws {
        let user = try await registered()
        _ = try await accounts.confirmEmail(token: try #require(await mailed.token(.confirmEmail)))
        let session = try await accounts.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        try await database.writer.write { db in try db.execute(sql: "UPDATE user SET banned = 1 WHERE id = ?", arguments: [user.id]) }
        #expect(try await accounts.authenticate(bearer: session.accessToken) == nil)
        await #expect(throws: MeetError("account.banned", status: 403)) {
            try await accounts.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        }
    }

    @Test func weakerHashesAreUpgradedAtLogin() async throws {
        _ = try await registered()
        _ = try await accounts.confirmEmail(token: try #require(await mailed.token(.confirmEmail)))
        let stronger = AccountService(database: database, hasher: PasswordHasher(parameters: .init(logRounds: 5)), now: { [clock] in clock.now })
        _ = try await stronger.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        let hash = try await database.reader.read { db in try String.fetchOne(db, sql: "SELECT passwordHash FROM user") }
        #expect(hash?.hasPrefix("$scrypt$ln=5,") == true)
    }
}
