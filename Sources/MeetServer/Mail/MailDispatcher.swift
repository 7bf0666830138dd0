import Foundation
import Logging
import MeetCore
import ServiceLifecycle

/// Drains the mail outbox (notification and account mails): claims due mails, renders each in its recipient's language, hands
/// it to the configured mail transport (maildrop or SMTP) and records the outcome. A transient
/// failure (the SMTP server away, a 4xx) comes back after the retry policy's backoff; a 5xx
/// refusal, or the last attempt failing, leaves the mail `dead` with its reason.
struct MailDispatcher: Service {
    /// Mails claimed, and sent concurrently, at a time (one SMTP connection each).
    static let batchSize = 8
    /// The longest sleep when nothing is due, a guard against a missed wake-up.
    static let idleWait = Duration.seconds(1)

    let queue: MailQueue
    let database: AppDatabase
    let mails: MailComposer
    let mailer: any Mailer
    let metrics: MailOutcomeMetrics
    let logger: Logger
    let now: @Sendable () -> Date

    func run() async throws {
        let requeued = try await queue.requeueInterrupted()
        if requeued > 0 { logger.info("mails cut off by a stop go again", metadata: ["mails": "\(requeued)"]) }
        let drain = OutboxDrain(table: "mailJob", database: database, idleWait: Self.idleWait, logger: logger, now: now)
        await drain.run {
            let batch = try await queue.claim(limit: Self.batchSize)
            if !batch.isEmpty { try await send(batch) }
            return !batch.isEmpty
        } nextDue: {
            try await queue.nextDue()
        }
    }

    /// Sends a batch concurrently, recording each outcome as it comes.
    private func send(_ batch: [MailDelivery]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for delivery in batch {
                group.addTask {
                    let outcome: MailOutcome
                    do {
                        try await mailer.send(await mails.mail(for: delivery))
                        outcome = .sent
                    } catch SMTPError.refused(let reason) {
                        outcome = .refused(reason: reason)
                    } catch {
                        outcome = .retry(reason: "\(error)")
                    }
                    metrics.count(outcome)
                    if outcome != .sent {
                        logger.warning("mail not sent", metadata: ["job": "\(delivery.jobId)", "attempt": "\(delivery.attempts)", "outcome": "\(outcome)"])
                    }
                    try await queue.record(delivery, outcome)
                }
            }
            try await group.waitForAll()
        }
    }
}

/// The dispatcher of all mails (notifications, confirmations, resets) through the services' mail transport; mails back off
/// like pushes (`--push-retry-base`), for `--mail-max-attempts` attempts.
func makeMailDispatcher(_ configuration: ServerConfiguration, services: AppServices, logger: Logger) throws -> MailDispatcher {
    var mailLogger = logger
    mailLogger[metadataKey: "subsystem"] = "mail"
    let meetings = services.meetings
    let mails = try MailComposer(localizer: services.localizer, links: AppLinks(base: configuration.linkBase)) { id, viewerId in
        try? await meetings.meeting(id, viewer: viewerId)
    }
    var retry = configuration.push.retry
    retry.maximumAttempts = configuration.mailMaxAttempts
    return MailDispatcher(
        queue: MailQueue(database: services.database, retry: retry, now: configuration.now),
        database: services.database, mails: mails, mailer: services.mailer,
        metrics: MailOutcomeMetrics(registry: configuration.metricsRegistry), logger: mailLogger, now: configuration.now)
}
