import Foundation
import Logging
import MeetCore
import ServiceLifecycle
import Stomp

/// Drains the push outbox: claims due jobs in batches, builds each push in its device's
/// language, hands it to the transport of its service and records the outcome. Wakes when
/// jobs are added, and when a retry falls due.
///
/// At start it puts back the jobs a crash left claimed; on a graceful stop it finishes the
/// batch in hand, so only a crash can repeat a push (the app drops it by notification id).
struct PushDispatcher: Service {
    /// Tunables of the dispatcher.
    struct Configuration: Sendable {
        /// Jobs claimed, and delivered concurrently, at a time.
        var batchSize = 64
        /// The longest sleep when nothing is due, a guard against a missed wake-up.
        var idleWait = Duration.seconds(1)
        var retry = PushRetryPolicy()
    }

    let database: AppDatabase
    let payloads: PushPayloads
    let transports: PushTransports
    let configuration: Configuration
    let logger: Logger
    let now: @Sendable () -> Date
    /// Whether a user has the chat room of a meeting, or their direct conversations, open
    /// (subscribed) now: its chat pushes are withdrawn, since they read it there. The subject is
    /// a chat notification's (a meeting id, or a direct room id).
    let isReading: @Sendable (_ userId: String, _ subjectId: String) -> Bool

    func run() async throws {
        let queue = PushQueue(database: database, retry: configuration.retry, now: now)
        let requeued = try await queue.requeueInterrupted()
        if requeued > 0 { logger.info("pushes cut off by a stop go again", metadata: ["jobs": "\(requeued)"]) }
        let drain = OutboxDrain(table: "pushJob", database: database, idleWait: configuration.idleWait, logger: logger, now: now)
        await drain.run {
            let batch = try await queue.claim(limit: configuration.batchSize)
            if !batch.isEmpty { try await queue.record(await deliver(batch)) }
            return !batch.isEmpty
        } nextDue: {
            try await queue.nextDue()
        }
        await transports.http?.shutdown()
    }

    /// Delivers a batch concurrently; the outcomes in any order.
    private func deliver(_ batch: [PushDelivery]) async -> [(job: PushJob, outcome: PushOutcome)] {
        await withTaskGroup(of: (job: PushJob, outcome: PushOutcome).self) { group in
            for delivery in batch {
                group.addTask {
                    let notification = delivery.notification
                    if notification.kind == ChatPushes.kind, isReading(notification.userId, notification.subjectId) {
                        return (delivery.job, .withdrawn)
                    }
                    do {
                        let message = try payloads.message(for: delivery)
                        return (delivery.job, await transports.transport(for: message.service).deliver(message))
                    } catch {
                        return (delivery.job, .rejected(reason: "payload: \(error)"))
                    }
                }
            }
            var outcomes: [(job: PushJob, outcome: PushOutcome)] = []
            for await outcome in group {
                outcomes.append(outcome)
            }
            return outcomes
        }
    }
}

/// The transport of each push service.
struct PushTransports: Sendable {
    var apns: any PushTransport
    var fcm: any PushTransport
    /// The network transports' client, shut down with the dispatcher.
    var http: PushHTTP?

    func transport(for service: Device.PushService) -> any PushTransport {
        switch service {
        case .apns: apns
        case .fcm: fcm
        }
    }
}

/// The dispatcher as configured: each service through its network transport when set up,
/// else to the pushdrop; no chat push to whoever is subscribed to its room on `broker`.
func makePushDispatcher(_ configuration: ServerConfiguration, services: AppServices, broker: StompBroker,
                        logger: Logger) throws -> PushDispatcher {
    let settings = configuration.push
    let pushdrop = try FilePushTransport(directory: URL(fileURLWithPath: configuration.pushdropPath))
    let http = settings.apns == nil && settings.fcm == nil ? nil : try PushHTTP.make(trustingAlso: settings.trustedCertificatesFile)
    var transports = PushTransports(apns: pushdrop, fcm: pushdrop, http: http)
    if let http, let apns = settings.apns {
        let hosts = apns.url.map { APNsTransport.Hosts(production: $0, sandbox: $0) } ?? APNsTransport.Hosts()
        transports.apns = APNsTransport(http: http, key: apns.key, hosts: hosts, now: configuration.now)
    }
    if let http, let fcm = settings.fcm {
        transports.fcm = FCMTransport(http: http, account: fcm.account, baseURL: fcm.url, now: configuration.now)
    }
    var dispatcherLogger = logger
    dispatcherLogger[metadataKey: "subsystem"] = "push"
    return PushDispatcher(
        database: services.database,
        payloads: PushPayloads(localizer: services.localizer, apnsTopic: settings.apnsTopic),
        transports: transports,
        configuration: .init(batchSize: settings.batchSize, retry: settings.retry),
        logger: dispatcherLogger, now: configuration.now,
        isReading: { userId, subjectId in
            // A conversation is open wherever the user follows their direct queue.
            let live = ChatPushes.isDirect(subjectId) ? DirectApplication.queue : "/topic/meetings.\(subjectId).chat"
            return broker.isSubscribed(user: userId, to: live)
        })
}
