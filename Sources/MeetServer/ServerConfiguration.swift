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
    /// Where places are looked up; the offline gazetteer unless told otherwise.
    public var geocoder: GeocoderChoice = .gazetteer

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
}
