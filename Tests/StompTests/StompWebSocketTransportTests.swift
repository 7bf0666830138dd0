import NIOCore
import NIOEmbedded
import Testing
import WebSocket
@testable import Stomp

/// The WebSocket transport on an embedded channel: what our WebSocket layer hands up and takes down.
@Suite struct StompWebSocketTransportTests {
    struct AllowAll: StompAuthorizer {
        func authorize(_ access: StompAccess, destination: String, principal: StompPrincipal,
                       on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
            eventLoop.makeSucceededVoidFuture()
        }
    }

    private func channel(transportToken: String? = nil) throws -> EmbeddedChannel {
        let broker = StompBroker(authenticator: TokenAuthenticator(), authorizer: AllowAll())
        let channel = EmbeddedChannel()
        try broker.addWebSocketSession(to: channel.pipeline.syncOperations, transportToken: transportToken)
        return channel
    }

    private func outbound(_ channel: EmbeddedChannel) throws -> [WebSocketMessage] {
        var messages: [WebSocketMessage] = []
        while let message = try channel.readOutbound(as: WebSocketMessage.self) { messages.append(message) }
        return messages
    }

    @Test func severalFramesInOneMessageAndOneFrameAcrossMessages() throws {
        let channel = try channel()
        try channel.writeInbound(WebSocketMessage.text("CONNECT\naccept-version:1.2\npasscode:token-a\n\n\0SUBSCRIBE\nid:0\ndestination:/topic/t\n\n\0SEND\ndestina"))
        try channel.writeInbound(WebSocketMessage.text("tion:/topic/t\nreceipt:1\n\nhi\0"))
        let messages = try outbound(channel)
        #expect(messages.map { String(buffer: $0.data).prefix { $0 != "\n" } } == ["CONNECTED", "MESSAGE", "RECEIPT"])
        #expect(messages.allSatisfy { $0.kind == .text })
    }

    @Test func binaryBodiesGoOutAsBinaryMessages() throws {
        let channel = try channel()
        var send = ByteBuffer(string: "CONNECT\naccept-version:1.2\npasscode:token-a\n\n\0SUBSCRIBE\nid:0\ndestination:/topic/t\n\n\0")
        send.writeString("SEND\ndestination:/topic/t\ncontent-length:3\n\n")
        send.writeBytes([0xFF, 0x00, 0xFE, 0x00])
        try channel.writeInbound(WebSocketMessage(kind: .binary, data: send))
        let messages = try outbound(channel)
        #expect(messages.map(\.kind) == [.text, .binary])
        #expect(Array(messages[1].data.readableBytesView.suffix(4)) == [0xFF, 0x00, 0xFE, 0x00])
    }

    @Test func theUpgradeTokenAuthenticatesWhenConnectHasNone() throws {
        let channel = try channel(transportToken: "token-carol")
        try channel.writeInbound(WebSocketMessage.text("CONNECT\naccept-version:1.2\n\n\0"))
        let connected = try #require(try outbound(channel).first)
        #expect(String(buffer: connected.data).contains("user-name:carol\n"))
    }

    @Test func aBadTokenGetsErrorThenTheChannelCloses() throws {
        let channel = try channel(transportToken: "nope")
        try channel.writeInbound(WebSocketMessage.text("CONNECT\naccept-version:1.2\n\n\0"))
        let error = try #require(try outbound(channel).first)
        #expect(String(buffer: error.data).hasPrefix("ERROR\n"))
        #expect(!channel.isActive)
    }

    @Test func subprotocolsArePreferredHighestFirst() {
        #expect(StompBroker.webSocketSubprotocols == ["v12.stomp", "v11.stomp", "v10.stomp"])
    }
}
