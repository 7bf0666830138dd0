import ArgumentParser
import MeetServer

/// The deadlines and limits that keep clients who never sign in from holding the server's
/// connections (docs/operations.md explains each).
struct DoorOptions: ParsableArguments {
    @Option(help: "Seconds a client has to send a complete request head. [env: MEETUPD_HTTP_HEAD_TIMEOUT] (default: 10)")
    var httpHeadTimeout: Double?

    @Option(help: "Seconds a request body may stop arriving before the request gets 408. [env: MEETUPD_HTTP_BODY_TIMEOUT] (default: 30)")
    var httpBodyTimeout: Double?

    @Option(help: "Seconds a keep-alive connection may stay idle between requests. [env: MEETUPD_HTTP_IDLE_TIMEOUT] (default: 60)")
    var httpIdleTimeout: Double?

    @Option(help: "Largest request head (request line and headers) in bytes; larger ones get 431. [env: MEETUPD_MAX_REQUEST_HEAD_BYTES] (default: 32768)")
    var maxRequestHeadBytes: Int?

    @Option(help: "Largest request body in bytes, declared or sent; larger ones get 413. [env: MEETUPD_MAX_REQUEST_BODY_BYTES] (default: 33554432)")
    var maxRequestBodyBytes: Int?

    @Option(help: "Most HTTP connections one client address may hold open; 0 for no limit. [env: MEETUPD_MAX_CONNECTIONS_PER_ADDRESS] (default: 1024)")
    var maxConnectionsPerAddress: Int?

    @Option(help: "Seconds a new STOMP connection (WebSocket upgrade or TCP accept) has to send CONNECT. [env: MEETUPD_STOMP_CONNECT_TIMEOUT] (default: 10)")
    var stompConnectTimeout: Double?

    @Option(help: "Most STOMP connections not signed in yet; past it the one that waited longest is closed. [env: MEETUPD_MAX_UNAUTHENTICATED_SESSIONS] (default: 4096)")
    var maxUnauthenticatedSessions: Int?

    @Option(help: "Comma-separated addresses and networks of reverse proxies whose X-Forwarded-For/Forwarded headers are believed, e.g. 127.0.0.1,10.0.0.0/8. [env: MEETUPD_TRUSTED_PROXIES] (default: none)")
    var trustedProxies: String?

    /// Applies every option given (flag, else variable) to `configuration`.
    func apply(to configuration: inout ServerConfiguration) throws {
        var limits = configuration.httpLimits
        limits.headTimeout = try Self.seconds(httpHeadTimeout, "MEETUPD_HTTP_HEAD_TIMEOUT") ?? limits.headTimeout
        limits.bodyTimeout = try Self.seconds(httpBodyTimeout, "MEETUPD_HTTP_BODY_TIMEOUT") ?? limits.bodyTimeout
        limits.idleTimeout = try Self.seconds(httpIdleTimeout, "MEETUPD_HTTP_IDLE_TIMEOUT") ?? limits.idleTimeout
        limits.maxHeadSize = try Self.count(maxRequestHeadBytes, "MEETUPD_MAX_REQUEST_HEAD_BYTES", minimum: 1024) ?? limits.maxHeadSize
        limits.maxBodySize = try Self.count(maxRequestBodyBytes, "MEETUPD_MAX_REQUEST_BODY_BYTES", minimum: 1) ?? limits.maxBodySize
        limits.maxConnectionsPerAddress = try Self.count(
            maxConnectionsPerAddress, "MEETUPD_MAX_CONNECTIONS_PER_ADDRESS", minimum: 0) ?? limits.maxConnectionsPerAddress
        configuration.httpLimits = limits
        configuration.stompConnectTimeout = try Self.seconds(stompConnectTimeout, "MEETUPD_STOMP_CONNECT_TIMEOUT")
            ?? configuration.stompConnectTimeout
        configuration.maxUnauthenticatedStompSessions = try Self.count(
            maxUnauthenticatedSessions, "MEETUPD_MAX_UNAUTHENTICATED_SESSIONS", minimum: 1) ?? configuration.maxUnauthenticatedStompSessions
        if let list = CommonOptions.setting(trustedProxies, "MEETUPD_TRUSTED_PROXIES") {
            guard let proxies = TrustedProxies(list) else {
                throw ValidationError("Trusted proxies must be IP addresses or networks (10.0.0.0/8), comma-separated, not '\(list)'.")
            }
            configuration.trustedProxies = proxies
        }
    }

    /// A positive number of seconds from its flag, else its variable; `nil` when neither is set.
    private static func seconds(_ flag: Double?, _ variable: String) throws -> Duration? {
        guard let text = flag.map({ String($0) }) ?? CommonOptions.setting(nil, variable) else { return nil }
        guard let value = Double(text), value > 0, value <= 86_400 else {
            throw ValidationError("\(variable) must be a number of seconds above 0, not '\(text)'.")
        }
        return .nanoseconds(Int64(value * 1_000_000_000))
    }

    /// A whole number of at least `minimum` from its flag, else its variable; `nil` when neither is set.
    private static func count(_ flag: Int?, _ variable: String, minimum: Int) throws -> Int? {
        guard let text = flag.map({ String($0) }) ?? CommonOptions.setting(nil, variable) else { return nil }
        guard let value = Int(text), value >= minimum else {
            throw ValidationError("\(variable) must be a whole number of at least \(minimum), not '\(text)'.")
        }
        return value
    }
}
