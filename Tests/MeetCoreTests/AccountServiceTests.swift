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

/// Keeps sent mails in memory.
final class MemoryMailer: Mailer {
    private let sent = Mutex<[Mail]>([])
    var mails: [Mail] { sent.withLock { $0 } }
    func send(_ mail: Mail) async throws { sent.withLock { $0.append(mail) } }

    /// The token from the last mail's link for `action`.
    func token(_ action: String) -> String? {
        let marker = "/auth/\(action)?token="
        guard let body = mails.last(where: { $0.body.contains(marker) })?.body,
              let start = body.range(of: marker)?.upperBound else { return nil }
        return String(body[start...].prefix { !$0.isWhitespace })
    }
}

struct EchoLocalizer: Localizing {
    func localized(_ key: String, arguments: [String: String], acceptLanguage: String?) -> String? {
        "[\(acceptLanguage ?? "-")] \(key)"
    }
}

@Suite("Account service")
struct AccountServiceTests {
    let clock = TestClock()
    let mailer = MemoryMailer()
    let folder: TemporaryFolder
    let database: AppDatabase
    let accounts: AccountService

    init() throws {
        folder = try TemporaryFolder("meetcore-accounts-")
        database = try AppDatabase(dataDirectory: folder.url.path)
        accounts = AccountService(
            database: database, mailer: mailer, localizer: EchoLocalizer(), links: AppLinks(base: "https://meetup.example.org"),
            hasher: PasswordHasher(parameters: .init(logRounds: 4)), now: { [clock] in clock.now })
    }

    func registered(_ email: String = "a@example.org") async throws -> User {
        try await accounts.register(email: email, password: "correct horse battery", displayName: "A", locale: "uk", clientAddress: nil)
    }

    @Test func confirmationTokenExpiresAfterADay() async throws {
        _ = try await registered()
        let token = try #require(mailer.token("confirm"))
        clock.advance(by: 24 * 3600 + 1)
        await #expect(throws: MeetError("token.expired", status: 410)) { try await accounts.confirmEmail(token: token) }
    }

    @Test func resetTokenExpiresAfterAnHour() async throws {
        _ = try await registered()
        try await accounts.requestPasswordReset(email: "a@example.org", clientAddress: nil)
        let token = try #require(mailer.token("reset"))
        clock.advance(by: 3600 + 1)
        await #expect(throws: MeetError("token.expired", status: 410)) {
            try await accounts.resetPassword(token: token, newPassword: "a brand new secret")
        }
    }

    @Test func mailsAreInTheUsersLanguageAndCarryTheToken() async throws {
        _ = try await registered()
        let mail = try #require(mailer.mails.last)
        #expect(mail.to == "a@example.org")
        #expect(mail.subject == "[uk] mail.confirm.subject")
        #expect(mail.body.contains(try #require(mailer.token("confirm"))))
    }

    @Test func tokensAreStoredOnlyAsHashes() async throws {
        _ = try await registered()
        let mailed = try #require(mailer.token("confirm"))
        let stored = try await database.reader.read { db in try Data.fetchAll(db, sql: "SELECT tokenHash FROM accountToken") }
        #expect(stored == [RandomToken.hash(mailed)])
        #expect(stored.first?.count == 32)
    }

    @Test func sessionsExpireAndTrackLastUse() async throws {
        let user = try await registered()
        _ = try await accounts.confirmEmail(token: try #require(mailer.token("confirm")))
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
        _ = try await accounts.confirmEmail(token: try #require(mailer.token("confirm")))
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
        _ = try await accounts.confirmEmail(token: try #require(mailer.token("confirm")))
        _ = try await accounts.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        clock.advance(by: AccountService.sessionLifetime + 1)
        _ = try await accounts.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        let sessions = try await database.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM accessToken") }
        #expect(sessions == 1)
    }

    @Test func banningStopsTokensAtOnce() async throws {
        let user = try await registered()
        _ = try await accounts.confirmEmail(token: try #require(mailer.token("confirm")))
        let session = try await accounts.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        try await database.writer.write { db in try db.execute(sql: "UPDATE user SET banned = 1 WHERE id = ?", arguments: [user.id]) }
        #expect(try await accounts.authenticate(bearer: session.accessToken) == nil)
        await #expect(throws: MeetError("account.banned", status: 403)) {
            try await accounts.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        }
    }

    @Test func weakerHashesAreUpgradedAtLogin() async throws {
        _ = try await registered()
        _ = try await accounts.confirmEmail(token: try #require(mailer.token("confirm")))
        let stronger = AccountService(
            database: database, mailer: mailer, localizer: EchoLocalizer(), links: AppLinks(base: "https://meetup.example.org"),
            hasher: PasswordHasher(parameters: .init(logRounds: 5)), now: { [clock] in clock.now })
        _ = try await stronger.login(email: "a@example.org", password: "correct horse battery", clientAddress: nil)
        let hash = try await database.reader.read { db in try String.fetchOne(db, sql: "SELECT passwordHash FROM user") }
        #expect(hash?.hasPrefix("$scrypt$ln=5,") == true)
    }
}
