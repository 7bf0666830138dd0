import Foundation
import GRDB
import Logging
import MeetCore
import NIOCore
import ServiceLifecycle
import Stomp

/// Sends each new notification, once committed, to its user's connected sessions on
/// `/user/queue/notifications`, in the user's language. Live delivery is a courtesy: what a
/// session misses stays in the inbox (`GET /notifications`).
struct LiveNotifications: Service {
    static let destination = "/user/queue/notifications"

    let database: AppDatabase
    let localizer: Localizer
    let broker: StompBroker
    let logger: Logger

    func run() async throws {
        let wakeups = TableWakeups(table: "notification", in: database)
        defer { wakeups.cancel() }
        var last = try await database.reader.read { db in try Int64.fetchOne(db, sql: "SELECT max(seq) FROM notification") ?? 0 }
        let stopping = StopFlag()
        await withGracefulShutdownHandler {
            while !stopping.isSet, !Task.isCancelled {
                await wakeups.wait(upTo: .seconds(5))
                do {
                    last = try await send(after: last)
                } catch {
                    logger.warning("live notifications not sent", metadata: ["error": "\(error)"])
                }
            }
        } onGracefulShutdown: {
            stopping.set()
            wakeups.ring()
        }
    }

    /// Sends the notifications after `seq`; answers the last one sent.
    private func send(after seq: Int64) async throws -> Int64 {
        // Decoded on the reader: rows themselves cannot leave it.
        let fresh = try await database.reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT notification.*, user.locale AS userLocale FROM notification JOIN user ON user.id = notification.userId
                WHERE seq > ? ORDER BY seq
                """, arguments: [seq]).map { row in (try InboxNotification(row: row), row["userLocale"] as String) }
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        var last = seq
        for (notification, locale) in fresh {
            last = notification.seq ?? last
            // Chat messages reach connected sessions through their rooms, not this queue.
            guard notification.kind != ChatPushes.kind else { continue }
            let language = localizer.language(acceptLanguage: locale)
            let body = try encoder.encode(NotificationBody(notification, language: language, localizer: localizer))
            broker.send(
                toUser: notification.userId, destination: Self.destination, headers: ["content-type": "application/json"],
                body: ByteBuffer(bytes: body))
        }
        return last
    }
}
