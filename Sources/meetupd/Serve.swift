import ArgumentParser
import Hummingbird
import MeetServer
import Metrics
import Prometheus

/// `meetupd serve`: runs the service until SIGINT or SIGTERM, then shuts down gracefully.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the service (REST and WebSocket on one port).")

    @Option(help: "Address to listen on. [env: MEETUPD_HOST] (default: 127.0.0.1)")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free one. [env: MEETUPD_PORT] (default: 8080)")
    var port: Int?

    @Flag(help: "Echo every WebSocket message on /ws instead of speaking STOMP; a test mode for the WebSocket layer. [env: MEETUPD_WEBSOCKET_ECHO=1]")
    var websocketEcho = false

    @Option(help: "Also speak STOMP over plain TCP on this port (same broker as /ws). [env: MEETUPD_STOMP_PORT] (default: off)")
    var stompPort: Int?

    @Flag(help: "Let any authenticated STOMP session use /topic/sandbox.* like a stock broker's topic. [env: MEETUPD_STOMP_SANDBOX=1] (default: off)")
    var stompSandbox = false

    @Option(help: "Chat messages one user may post to one room at once before the steady rate applies. [env: MEETUPD_CHAT_BURST] (default: 10)")
    var chatBurst: Int?

    @Option(help: "Steady chat messages per second one user may post to one room. [env: MEETUPD_CHAT_RATE] (default: 1)")
    var chatRate: Double?

    @Option(help: "Seconds a user whose last session ended still shows online to friends, so a reconnecting phone makes no flap. [env: MEETUPD_PRESENCE_GRACE] (default: 10)")
    var presenceGrace: Double?

    @Option(help: "The address clients reach the service at, e.g. https://meetup.example.org; every link the service hands out (calendar files, mails) is built on it, never on a request's Host header. [env: MEETUPD_PUBLIC_URL] (default: http://HOST:PORT)")
    var publicUrl: String?

    @Option(help: "Share chat rooms with other meetupd nodes on the same data directory through this STOMP broker (RabbitMQ's STOMP adapter), e.g. stomp://meetupd:secret@127.0.0.1:61613/meetupd; see docs/scaling.md. [env: MEETUPD_RELAY] (default: off)")
    var relay: String?

    @OptionGroup var common: CommonOptions

    @OptionGroup var places: GeocoderOptions

    @OptionGroup var push: PushOptions
    @OptionGroup var appLinks: AppLinkOptions
    @OptionGroup var door: DoorOptions

    @OptionGroup var mailLimits: MailLimitOptions
    @OptionGroup var mailTransport: MailTransportOptions

    @OptionGroup var media: MediaOptions
    @OptionGroup var locationSharing: LocationSharingOptions

    /// Bad settings are refused before anything starts, with this command's usage.
    func validate() throws {
        _ = try resolvedConfiguration()
    }

    func run() async throws {
        try common.bootstrapLogging()
        let configuration = try resolvedConfiguration()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: configuration.metricsRegistry))
        let app = try buildApplication(configuration)
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    func resolvedConfiguration() throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.host = CommonOptions.setting(host, "MEETUPD_HOST") ?? configuration.host
        if let port {
            configuration.port = port
        } else if let text = CommonOptions.setting(nil, "MEETUPD_PORT") {
            guard let value = Int(text) else { throw ValidationError("MEETUPD_PORT must be a port number, not '\(text)'.") }
            configuration.port = value
        }
        guard (0...65535).contains(configuration.port) else {
            throw ValidationError("The port must be between 0 and 65535, not \(configuration.port).")
        }
        configuration.webSocketEcho = websocketEcho || CommonOptions.setting(nil, "MEETUPD_WEBSOCKET_ECHO") == "1"

        configuration.port = try Self.port(port, "MEETUPD_PORT") ?? configuration.port
        configuration.stompPort = try Self.port(stompPort, "MEETUPD_STOMP_PORT")
        configuration.stompSandbox = stompSandbox || CommonOptions.setting(nil, "MEETUPD_STOMP_SANDBOX") == "1"
        try resolveChatRateLimit(into: &configuration)
        if let text = CommonOptions.setting(publicUrl, "MEETUPD_PUBLIC_URL") {
            guard let url = ServerConfiguration.publicBaseURL(text) else {
                throw ValidationError("The public URL must be an http or https address with a host and no query, not '\(text)'.")
            }
            configuration.publicBaseURL = url
        }
        if let text = CommonOptions.setting(relay, "MEETUPD_RELAY") {
            guard let endpoint = RelayEndpoint(url: text) else {
                throw ValidationError("The relay must be a stomp://USER:PASS@HOST:PORT/VHOST address, not '\(text)'.")
            }
            configuration.relay = endpoint
        }
        configuration.dataDirectory = common.resolvedDataDirectory()
        configuration.logLevel = try common.resolvedLogLevel()
        configuration.geocoder = try places.resolved()
        configuration.push = try push.resolved()
        configuration.appIdentity = try appLinks.resolved()
        configuration.mailThrottle = try mailLimits.resolved()
        configuration.smtp = try mailTransport.resolved()
        if let attempts = try mailTransport.resolvedMaxAttempts() { configuration.mailMaxAttempts = attempts }
        configuration.mediaLimits = try media.resolved()
        configuration.locationSharing = try locationSharing.resolved()
        try door.apply(to: &configuration)
        return configuration
    }

    /// The per-user, per-room chat rate limit: lifted by the durable-chat benchmark
    /// (`Benchmarks/chat-durable.sh`), which measures storage, not the limit.
    private func resolveChatRateLimit(into configuration: inout ServerConfiguration) throws {
        if let text = CommonOptions.setting(chatBurst.map(String.init), "MEETUPD_CHAT_BURST") {
            guard let burst = Int(text), burst >= 1 else { throw ValidationError("The chat burst must be a whole number of at least 1, not '\(text)'.") }
            configuration.chatBurst = burst
        }
        if let text = CommonOptions.setting(chatRate.map { String($0) }, "MEETUPD_CHAT_RATE") {
            guard let rate = Double(text), rate > 0, rate.isFinite else { throw ValidationError("The chat rate must be a number of messages per second above 0, not '\(text)'.") }
            configuration.chatMessagesPerSecond = rate
        }
        if let text = CommonOptions.setting(presenceGrace.map { String($0) }, "MEETUPD_PRESENCE_GRACE") {
            guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
                throw ValidationError("The presence grace must be a number of seconds from 0 to 3600, not '\(text)'.")
            }
            configuration.presenceGrace = .milliseconds(Int64(seconds * 1000))
        }
    }

    /// A port from its flag, else its environment variable; `nil` when neither is set.
    private static func port(_ flag: Int?, _ variable: String) throws -> Int? {
        var port = flag
        if port == nil, let text = CommonOptions.setting(nil, variable) {
            guard let value = Int(text) else { throw ValidationError("\(variable) must be a port number, not '\(text)'.") }
            port = value
        }
        if let port, !(0...65535).contains(port) {
            throw ValidationError("The port must be between 0 and 65535, not \(port).")
        }
        return port
    }
}
