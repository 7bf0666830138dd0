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

    @OptionGroup var common: CommonOptions

    @OptionGroup var places: GeocoderOptions

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
        configuration.dataDirectory = common.resolvedDataDirectory()
        configuration.logLevel = try common.resolvedLogLevel()
        configuration.geocoder = try places.resolved()
        return configuration
    }
}
