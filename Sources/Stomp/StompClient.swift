import NIOCore
import NIOPosix

/// A minimal STOMP client over TCP, for our tests, the load generator and relays.
public final class StompClient: Sendable {
    /// Why a connection attempt failed.
    public enum ConnectError: Error, Sendable {
        /// The server answered CONNECT with this ERROR frame.
        case refused(StompFrame)
        /// The server closed the connection without answering.
        case closed
    }

    /// Thrown when the server said nothing at all, not even a heart-beat, for the client's
    /// `timeout`; the connection is closed then, since a frame may still be on its way.
    public struct TimedOut: Error, Sendable {
        /// How long the client waited.
        public let waited: Duration

        /// A wait of `waited` that ended with nothing received.
        public init(waited: Duration) {
            self.waited = waited
        }
    }

    /// The connection.
    public let channel: any Channel
    /// The version the server chose.
    public let version: StompVersion
    /// The server's CONNECTED frame.
    public let connected: StompFrame
    /// The longest the server may stay silent, heart-beats included, while ``next()`` waits
    /// before it throws ``TimedOut``; `nil` waits as long as the connection lives.
    public let timeout: Duration?
    private let inbound: StompClientInbound

    private init(channel: any Channel, connected: StompFrame, timeout: Duration?, inbound: StompClientInbound) {
        self.channel = channel
        self.connected = connected
        self.version = connected.headers["version"].flatMap(StompVersion.init(rawValue:)) ?? .v1_0
        self.timeout = timeout
        self.inbound = inbound
    }

    /// Connects, sends CONNECT with `headers` and waits for CONNECTED. With a `timeout`, the
    /// wait for CONNECTED and every ``next()`` end in ``TimedOut`` once the server has said
    /// nothing for that long: tests fail instead of hanging, and a relay that asked for
    /// heart-beats learns that a link went dead without a TCP error.
    public static func connect(host: String, port: Int, headers: StompHeaders = ["accept-version": "1.2", "host": "localhost"],
                               group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                               timeout: Duration? = nil) async throws -> StompClient {
        let inbound = StompClientInbound()
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(StompClientHandler(inbound: inbound))
                }
            }
            .connect(host: host, port: port)
            .get()
        try await channel.writeAndFlush(StompFrameEncoder.encode(StompFrame(.connect, headers: headers), version: .v1_0))
        guard let answer = try await inbound.next(on: channel, allowingSilence: timeout) else { throw ConnectError.closed }
        guard answer.command == .connected else {
            try? await channel.close()
            throw ConnectError.refused(answer)
        }
        return StompClient(channel: channel, connected: answer, timeout: timeout, inbound: inbound)
    }

    /// Sends a frame.
    public func send(_ frame: StompFrame) async throws {
        try await channel.writeAndFlush(StompFrameEncoder.encode(frame, version: version, allocator: channel.allocator))
    }

    /// Sends raw bytes, e.g. heart-beat EOLs or deliberately broken frames.
    public func send(bytes: ByteBuffer) async throws {
        try await channel.writeAndFlush(bytes)
    }

    /// The next frame from the server, or `nil` once the connection has closed.
    public func next() async throws -> StompFrame? {
        try await next(allowingSilence: timeout)
    }

    /// The next frame, or `nil` once the connection has closed; throws ``TimedOut`` (and
    /// closes) once the server has said nothing, not even a heart-beat, for `silence`.
    public func next(allowingSilence silence: Duration?) async throws -> StompFrame? {
        try await inbound.next(on: channel, allowingSilence: silence)
    }

    /// Closes the connection.
    public func close() async {
        try? await channel.close()
    }
}
