import Foundation
import Logging
import MeetCore
import Prometheus

/// Everything `meetupd serve` can be told: where to listen, where the data lives, how much
/// to log, how hard to hash passwords.
public struct ServerConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port (tests).
    public var port: Int
    /// Holds the SQLite database, media files and the mail and push drops.
    public var dataDirectory: String
    public var logLevel: Logger.Level
    /// scrypt cost for new password hashes; tests lower it to stay fast.
    public var passwordHashing: PasswordHasher.Parameters
    /// Where `GET /metrics` reads from; the executable also bootstraps the global
    /// `MetricsSystem` with it so every module's metrics appear there.
    public var metricsRegistry: PrometheusCollectorRegistry
    /// Echo every WebSocket message on `/ws` instead of speaking STOMP: a test mode for
    /// checking the WebSocket layer on its own. Off by default.
    public var webSocketEcho = false
    /// The clock that dates sessions and mailed tokens; tests move it to reach expiry.
    public var now: @Sendable () -> Date = Date.init
    /// Lets any authenticated STOMP session use `/topic/sandbox.*` like a stock broker's topic,
    /// to check the protocol apart from the app's rules. Off by default.
    public var stompSandbox = false
    /// A second port speaking STOMP over plain TCP to the same broker; `nil` (default) for none.
    public var stompPort: Int?
    /// Where places are looked up; the offline gazetteer unless told otherwise.
    public var geocoder: GeocoderChoice = .gazetteer
    /// The address clients reach the service at (`https://meetup.example.org`, no trailing
    /// slash): every link the service hands out is built on it, never on a request's `Host`
    /// header, which the client chooses. `nil` (default) means `http://host:port`.
    public var publicBaseURL: String?
    /// How many chat messages one user may post to one room in a burst, and how many a second
    /// after it.
    public var chatBurst = 10
    public var chatMessagesPerSecond = 1.0
    /// How long a user whose last session ended still shows online: a phone that reconnects
    /// sooner makes no offline/online flap.
    public var presenceGrace: Duration = .seconds(10)
    /// When members may share their way to a meeting and how long a lost connection keeps them
    /// on the map (docs/chat.md "Members on the way").
    public var locationSharing = LocationSharingPolicy()
    /// How many account mails go out per hour to one address and for one client address.
    public var mailThrottle = MailThrottle()
    /// The SMTP server mail goes to; nil (the default) writes `.eml` files to the maildrop.
    public var smtp: SMTPSettings?
    /// Attempts before a notification mail is given up (``MailDispatcher``). Mails back off like
    /// pushes, doubling from `push.retry.baseDelay` up to an hour apart: 20 attempts span about
    /// seven hours with the default base, long enough to outlast an SMTP server's bad evening.
    public var mailMaxAttempts = 20
    /// Upload size and pixel limits, per-user limits, the unused-upload grace period.
    public var mediaLimits = MediaLimits()
    /// How pushes are built, delivered and retried.
    public var push = PushSettings()
    /// The broker through which several nodes on one data directory share their rooms
    /// (docs/scaling.md); `nil` (default) for a node on its own.
    public var relay: RelayEndpoint?
    /// The apps that may open the service's https links (`/.well-known/...`); none by default.
    public var appIdentity = AppIdentity()
    /// Deadlines and size limits of HTTP connections on the main port, and how many one client
    /// address may hold (docs/operations.md).
    public var httpLimits = HTTPConnectionLimits()
    /// Reverse proxies whose `X-Forwarded-For`/`Forwarded` headers name the client; none by
    /// default, so the client address is the TCP peer's.
    public var trustedProxies = TrustedProxies()
    /// How long a new STOMP connection (TCP accept or WebSocket upgrade) has to send CONNECT.
    public var stompConnectTimeout = Duration.seconds(10)
    /// The most STOMP connections not signed in yet, on both transports together.
    public var maxUnauthenticatedStompSessions = 4096

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        dataDirectory: String = "meetupd-data",
        logLevel: Logger.Level = .info,
        passwordHashing: PasswordHasher.Parameters = .standard,
        metricsRegistry: PrometheusCollectorRegistry = .init()
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.logLevel = logLevel
        self.passwordHashing = passwordHashing
        self.metricsRegistry = metricsRegistry
    }

    var maildropPath: String { dataDirectory + "/maildrop" }

    var mediaPath: String { dataDirectory + "/media" }
    var pushdropPath: String { dataDirectory + "/pushdrop" }

    /// The base of every public link: ``publicBaseURL``, else the address listened on.
    var linkBase: String { publicBaseURL ?? "http://\(host):\(port)" }

    /// `text` as a public base URL (http or https, a host, no query or fragment, no trailing
    /// slash), or `nil` when it is none.
    public static func publicBaseURL(_ text: String) -> String? {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil else { return nil }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}
