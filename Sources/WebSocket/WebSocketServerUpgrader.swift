import NIOCore
import NIOHTTP1

/// An upgrade request that passed the WebSocket handshake rules, as the application sees it.
public struct WebSocketUpgradeRequest: Sendable {
    /// The HTTP request (path, query, headers such as `Authorization`).
    public var head: HTTPRequestHead
    /// The subprotocol the server will answer with, chosen from the configuration's list in
    /// its order, or `nil` when the client offered none of them.
    public var subprotocol: String?
}

/// The application's answer to an upgrade request.
public struct WebSocketUpgradeDecision: Sendable {
    enum Outcome: Sendable {
        case accept(HTTPHeaders)
        case refuse(WebSocketUpgradeRefusal)
    }

    let outcome: Outcome

    /// Switch protocols, adding `headers` to the 101 response.
    public static func accept(headers: HTTPHeaders = [:]) -> Self {
        Self(outcome: .accept(headers))
    }

    /// Answer with `status` instead (e.g. 401 for a bad token, 404 for an unknown path).
    public static func refuse(_ status: HTTPResponseStatus, headers: HTTPHeaders = [:], reason: String = "") -> Self {
        Self(outcome: .refuse(WebSocketUpgradeRefusal(status: status, headers: headers, reason: reason)))
    }
}

/// Upgrades an HTTP/1.1 connection to WebSocket (RFC 6455 §4.2) inside NIO's typed upgrade handler.
///
/// Handshake errors and the application's refusals fail the upgrade with a
/// ``WebSocketUpgradeRefusal``; put a ``WebSocketUpgradeRefusalHandler`` after the upgrade
/// handler to turn that into the HTTP response. On success the pipeline gets the WebSocket
/// connection handler, then `upgradePipelineHandler` adds the application's handler, whose
/// `InboundIn` is ``WebSocketMessage``.
public struct WebSocketServerUpgrader<UpgradeResult: Sendable>: NIOTypedHTTPServerProtocolUpgrader {
    /// Decides whether a valid upgrade request may proceed.
    public typealias ShouldUpgrade = @Sendable (Channel, WebSocketUpgradeRequest) -> EventLoopFuture<WebSocketUpgradeDecision>
    /// Adds the application's handlers after the WebSocket layer and returns the upgrade result.
    public typealias UpgradePipelineHandler = @Sendable (Channel, WebSocketUpgradeRequest) -> EventLoopFuture<UpgradeResult>

    /// Always `websocket`.
    public let supportedProtocol = "websocket"
    /// Empty: the headers are checked in `buildUpgradeResponse` so that a bad request gets a
    /// precise status instead of silently falling through to plain HTTP.
    public let requiredUpgradeHeaders: [String] = []

    private let configuration: WebSocketConfiguration
    private let shouldUpgrade: ShouldUpgrade
    private let upgradePipelineHandler: UpgradePipelineHandler

    /// Creates an upgrader.
    public init(
        configuration: WebSocketConfiguration = WebSocketConfiguration(),
        shouldUpgrade: @escaping ShouldUpgrade,
        upgradePipelineHandler: @escaping UpgradePipelineHandler
    ) {
        self.configuration = configuration
        self.shouldUpgrade = shouldUpgrade
        self.upgradePipelineHandler = upgradePipelineHandler
    }

    /// Validates the handshake, asks the application, and answers with the 101 headers.
    public func buildUpgradeResponse(
        channel: Channel,
        upgradeRequest: HTTPRequestHead,
        initialResponseHeaders: HTTPHeaders
    ) -> EventLoopFuture<HTTPHeaders> {
        let handshake: WebSocketHandshake
        do {
            handshake = try WebSocketHandshake(request: upgradeRequest, configuration: self.configuration)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let request = WebSocketUpgradeRequest(head: upgradeRequest, subprotocol: handshake.subprotocol)
        return self.shouldUpgrade(channel, request).flatMapThrowing { decision in
            switch decision.outcome {
            case .refuse(let refusal):
                throw refusal
            case .accept(let extra):
                var headers = initialResponseHeaders
                headers.add(contentsOf: handshake.responseHeaders)
                headers.add(contentsOf: extra)
                return headers
            }
        }
    }

    /// Puts the WebSocket layer into the pipeline, then the application's handlers.
    public func upgrade(channel: Channel, upgradeRequest: HTTPRequestHead) -> EventLoopFuture<UpgradeResult> {
        let configuration = self.configuration
        let handler = self.upgradePipelineHandler
        return channel.eventLoop.makeCompletedFuture {
            // Same request, same configuration: the same answer buildUpgradeResponse gave.
            let handshake = try WebSocketHandshake(request: upgradeRequest, configuration: configuration)
            try channel.pipeline.syncOperations.addHandler(
                WebSocketConnectionHandler(configuration: configuration, perMessageDeflate: handshake.perMessageDeflate)
            )
            return WebSocketUpgradeRequest(head: upgradeRequest, subprotocol: handshake.subprotocol)
        }.flatMap { request in
            handler(channel, request)
        }
    }
}
