import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import Logging
import MeetCore
import Prometheus

/// Builds the whole service: opens (and migrates) the database in the data directory and
/// mounts every feature's routes under `/api/v1`.
///
/// `onServerRunning` receives the bound port once the server listens (useful with port 0).
public func buildApplication(
    _ configuration: ServerConfiguration,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    var logger = Logger(label: "meetupd")
    logger.logLevel = configuration.logLevel
    let services = try AppServices(configuration)
    var relayLogger = logger
    relayLogger[metadataKey: "subsystem"] = "relay"
    let relayLink = configuration.relay.map { RelayLink(endpoint: $0, logger: relayLogger) }
    let live = LiveRelay(link: relayLink, node: "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)",
                         presence: services.presence)
    let broker = makeStompBroker(configuration, services: services, live: live, logger: logger)
    let liveFigures: @Sendable () -> ServerLiveFigures = { [weak broker] in
        let counts = broker?.signedInCounts ?? (sessions: 0, users: 0)
        return ServerLiveFigures(stompSessions: counts.sessions, stompUsers: counts.users)
    }
    // Every listener's connections hold descriptors of the one file table.
    let openConnections = OpenConnections.belowFileLimit()
    let relay = relayLink.map {
        RelayService(link: $0, live: live, chat: services.chat, broker: broker, linkBase: configuration.linkBase, logger: relayLogger)
    }
    return Application(
        router: try buildRouter(configuration, services: services, liveFigures: liveFigures),
        server: .http1WebSocket(
            configuration.webSocketEcho ? .echo() : .stomp(broker),
            policy: ConnectionPolicy(limits: configuration.httpLimits, trustedProxies: configuration.trustedProxies,
                                     localizer: services.localizer, open: openConnections)),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "meetupd"),
        // Stopped in reverse order: the feed saves its cursors once HTTP no longer serves.
        services: [FeedLifecycle(meetings: services.meetings, logger: logger),
                   ChangeTailService(tail: services.changes, dataDirectory: configuration.dataDirectory, liveFigures: liveFigures, logger: logger),
                   MediaSweeper(media: services.media, logger: logger),
                   BanLapses(moderation: ModerationService(database: services.database, now: configuration.now), logger: logger)]
            + [LiveNotifications(database: services.database, localizer: services.localizer, broker: broker, logger: logger),
               try makePushDispatcher(configuration, services: services, broker: broker, logger: logger),
               try makeMailDispatcher(configuration, services: services, logger: logger),
               ChatPushSweeper(retention: ChatPushRetention(database: services.database, now: configuration.now), logger: logger)]
            + [ChatEventsService(chat: services.chat, logger: logger)]
            + (relay.map { [$0] } ?? [])
            + (configuration.stompPort.map { [StompTCPService(host: configuration.host, port: $0, broker: broker,
                                                                   gate: StompPortGate(open: openConnections,
                                                                                       limit: configuration.httpLimits.maxConnectionsPerAddress,
                                                                                       trustedProxies: configuration.trustedProxies))] } ?? []),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
}

/// The services and every route, with the middlewares in front of them. `liveFigures` tells
/// who is connected to the broker built beside the router (none in tests of the router alone).
func buildRouter(
    _ configuration: ServerConfiguration, services: AppServices? = nil, liveFigures: (@Sendable () -> ServerLiveFigures)? = nil
) throws -> Router<AppRequestContext> {
    let services = try services ?? AppServices(configuration)
    let database = services.database
    let localizer = services.localizer
    let accounts = services.accounts

    let router = Router(context: AppRequestContext.self)
    let routes = RouteTable()
    // Middlewares apply to the routes added after them, so they come first. Metrics sit
    // outside the problem renderer so that they see every failure's final status.
    router.add(middleware: RequestMetricsMiddleware(factory: PrometheusMetricsFactory(registry: configuration.metricsRegistry)))
    if !configuration.trustedProxies.isEmpty {
        router.add(middleware: ClientAddressMiddleware(trustedProxies: configuration.trustedProxies))
    }
    router.add(middleware: ProblemMiddleware(renderer: ProblemRenderer(localizer: localizer), routes: routes))
    router.add(middleware: BearerAuthMiddleware(accounts: accounts, checkedByRoute: [feedRoute]))
    router.add(middleware: NULQueryMiddleware())

    try addServiceRoutes(to: router, database: database, metrics: configuration.metricsRegistry)
    let api = router.group("api/v1")
    let now = configuration.now
    let devices = DeviceService(database: database, now: now)
    addAccountRoutes(to: api, accounts: accounts, devices: devices)
    addProfileRoutes(
        to: api, profiles: ProfileService(database: database, now: now), locations: LocationService(database: database, now: now),
        presence: services.presence, now: now)
    addActivityRoutes(to: api, activities: ActivityService(database: database, now: now), localizer: localizer)
    addPlaceRoutes(to: api, geocoder: services.geocoder)
    addFriendRoutes(to: api, friends: FriendService(database: database, now: now))
    addMeetingRoutes(to: api, meetings: services.meetings, accounts: accounts, grants: services.roomGrants, linkBase: configuration.linkBase)
    addChatRoutes(to: api, chat: services.chat, linkBase: configuration.linkBase)
    addDirectRoutes(to: api, chat: services.chat, linkBase: configuration.linkBase)
    addPresenceRoutes(to: api, presence: services.presence)
    addMediaRoutes(to: api, media: services.media, linkBase: configuration.linkBase)
    addReportRoutes(to: api, reports: ReportService(database: database, now: now))
    addAdminRoutes(to: api, moderation: ModerationService(database: database, now: now), accounts: accounts, liveFigures: liveFigures)
    addDeviceRoutes(to: api, devices: devices)
    addNotificationRoutes(to: api, inbox: InboxService(database: database, now: now), localizer: localizer)
    addNotificationSettingsRoutes(to: api, preferences: NotificationPreferences(database: database, now: now))
    let links = AppLinks(base: configuration.linkBase)
    try addRemoteConfigRoutes(
        to: api, config: services.remoteConfig,
        promos: PromoService(database: database, now: now), links: links)
    try addLinkRoutes(to: router, meetings: services.meetings, links: links, identity: configuration.appIdentity, localizer: localizer)

    routes.load(from: router)
    return router
}

/// The long-lived services that REST and STOMP share: one database, one account service.
struct AppServices {
    let database: AppDatabase
    let localizer: Localizer
    /// The configured mail transport: the maildrop, or SMTP.
    let mailer: any Mailer
    let accounts: AccountService
    /// The configured geocoder; meetings resolve their places with `geocoder.place(for:)`.
    let geocoder: any Geocoder
    /// One meeting service, whose feed index and cursors live as long as the server.
    let meetings: MeetingService
    /// One chat service, whose commit queue and rate limits live as long as the server.
    let chat: ChatService
    /// The change log's tail: how in-memory state learns of writes made by any process.
    let changes: ChangeTail
    /// Which rooms each token was lately found allowed into (the STOMP authorizer's memo).
    let roomGrants: RoomGrants
    /// The active remote configuration, kept in memory and following the change log.
    let remoteConfig: RemoteConfigService
    /// Uploads: one processing queue, one sweep, per server.
    let media: MediaService
    /// Who is online, in memory; the broker's sessions feed it (``PresenceTracker``).
    let presence: PresenceTracker

    init(_ configuration: ServerConfiguration) throws {
        geocoder = configuration.geocoder.makeGeocoder()
        database = try AppDatabase(dataDirectory: configuration.dataDirectory)
        localizer = try Localizer.bundled()
        mailer = configuration.smtp.map { SMTPMailer(settings: $0, sender: MaildropMailer.defaultSender, now: configuration.now) as any Mailer }
            ?? MaildropMailer(directory: URL(fileURLWithPath: configuration.maildropPath), now: configuration.now)
        accounts = AccountService(
            database: database,
            hasher: PasswordHasher(parameters: configuration.passwordHashing),
            mailThrottle: configuration.mailThrottle,
            mailHeldBack: MailMetrics(registry: configuration.metricsRegistry).count,
            now: configuration.now)
        let geocoder = geocoder
        meetings = MeetingService(database: database, resolvePlace: { try await geocoder.place(for: $0) }, now: configuration.now)
        presence = PresenceTracker(
            store: PresenceStore(database: database), eventLoop: MultiThreadedEventLoopGroup.singleton.next(),
            grace: TimeAmount(configuration.presenceGrace))
        var chatLogger = Logger(label: "meetupd")
        chatLogger.logLevel = configuration.logLevel
        chatLogger[metadataKey: "subsystem"] = "chat"
        chat = ChatService(
            database: database, now: configuration.now, burst: configuration.chatBurst, perSecond: configuration.chatMessagesPerSecond,
            pushDelay: configuration.push.chatDelay, logger: chatLogger)
        changes = try ChangeTail(database: database, now: configuration.now)
        meetings.follow(changes)
        chat.follow(changes)
        roomGrants = RoomGrants(database: database, now: configuration.now)
        roomGrants.follow(changes)
        ModerationService.endSessionsOfBannedUsers(following: changes, in: accounts.liveSessions)
        remoteConfig = RemoteConfigService(database: database, now: configuration.now)
        remoteConfig.follow(changes)
        media = try MediaService(
            database: database, directory: URL(fileURLWithPath: configuration.mediaPath), limits: configuration.mediaLimits,
            now: configuration.now)
        // Before serving, so that no cursor from before a restart is refused meanwhile.
        try meetings.restoreFeedCursors()
    }
}
