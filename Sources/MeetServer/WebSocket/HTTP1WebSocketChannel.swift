import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import WebSocket

/// Hummingbird child channel that serves HTTP/1.1 and upgrades the WebSocket endpoint on
/// the same port.
///
/// Shaped like HummingbirdWebSocket's `HTTP1WebSocketUpgradeChannel`, but the upgrade goes
/// to our own WebSocket layer: NIO's typed upgrade handler asks ``WebSocketServerUpgrader``,
/// a refusal is answered by ``WebSocketUpgradeRefusalHandler``, and anything that is not an
/// upgrade continues as ordinary HTTP through the router. An ``HTTPConnectionGuard`` holds the
/// door of every connection until it upgrades.
struct HTTP1WebSocketChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        case webSocket(any Channel)
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let http1: HTTP1Channel.Configuration
    let endpoint: WebSocketEndpoint
    let policy: ConnectionPolicy
    /// Every upgraded connection of this server, until it closes.
    let webSockets = OpenWebSockets()

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(
                upgradeConfiguration: .init(
                    upgraders: [self.upgrader()],
                    notUpgradingCompletionHandler: { channel in
                        channel.eventLoop.makeCompletedFuture { try self.continueAsHTTP(channel, logger: logger) }
                    }
                )
            )
            // As in Hummingbird's HTTP1Channel: NIOAsyncChannel pipelines and swift-http-types
            // validates headers. Parse errors are answered by the guard, not by NIO's handler,
            // which knows neither 431 nor problem documents.
            configuration.enablePipelining = false
            configuration.enableErrorHandling = false
            configuration.enableResponseHeaderValidation = false
            configuration.decoderConfiguration.maxHeaderFieldSize = self.policy.limits.maxHeadSize
            configuration.decoderConfiguration.maxHeaderListSize = self.policy.limits.maxHeadSize
            configuration.decoderConfiguration.maxHeaderFieldCount = self.http1.httpDecoder.maxHeaderFieldCount
            let upgradeResult = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                configuration: configuration
            )
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionGuard(policy: self.policy))
            try channel.pipeline.syncOperations.addHandler(WebSocketUpgradeRefusalHandler())
            return Value(upgradeResult: upgradeResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .http(let http):
                await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
                    await self.handleHTTP(asyncChannel: http, logger: logger)
                }
            case .webSocket(let channel):
                // The WebSocket layer owns the connection now; one task keeps them all.
                if webSockets.hold(channel) { await webSockets.keep() }
            }
        } catch {
            logger.debug("connection ended before the upgrade was settled", metadata: ["error": "\(error)"])
        }
    }

    private func upgrader() -> WebSocketServerUpgrader<UpgradeResult> {
        let endpoint = self.endpoint
        return WebSocketServerUpgrader(
            configuration: endpoint.configuration,
            shouldUpgrade: { channel, request in
                let path = request.head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
                guard path == endpoint.path else {
                    return channel.eventLoop.makeSucceededFuture(.refuse(.notFound, reason: "no WebSocket endpoint here"))
                }
                return endpoint.shouldUpgrade(request, channel)
            },
            upgradePipelineHandler: { channel, request in
                channel.eventLoop.makeCompletedFuture {
                    // A WebSocket is no HTTP connection any more: its own deadlines and limits rule.
                    let pipeline = channel.pipeline.syncOperations
                    pipeline.removeHandler(try pipeline.handler(type: HTTPConnectionGuard.self), promise: nil)
                    try endpoint.addHandlers(channel, request)
                    return .webSocket(channel)
                }
            }
        )
    }

    /// The same handlers Hummingbird's HTTP1Channel puts after the HTTP codec.
    private func continueAsHTTP(_ channel: any Channel, logger: Logger) throws -> UpgradeResult {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
        try pipeline.addHandlers(self.http1.additionalChannelHandlers())
        try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: self.http1.idleTimeout.map { .init($0) }, logger: logger))
        return .http(try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true)))
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with `endpoint` upgrading to WebSocket on the same port, every connection
    /// held to `policy`.
    static func http1WebSocket(_ endpoint: WebSocketEndpoint, policy: ConnectionPolicy,
                               http1: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            HTTP1WebSocketChannel(responder: responder, http1: http1, endpoint: endpoint, policy: policy)
        }
    }
}
