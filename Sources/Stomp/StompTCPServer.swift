import NIOCore
import NIOPosix
import WebSocket

/// STOMP over plain TCP: a listener whose every connection is a session of `broker`.
public enum StompTCPServer {
    /// Binds `host:port` (port 0 picks a free one) and serves until the returned channel is closed.
    /// With a `gate`, a connection is served only if the gate admits it, and holds its places
    /// until it signs in and until it closes.
    public static func bind(host: String, port: Int, broker: StompBroker, gate: (any StompAddressGate)? = nil,
                            group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let gate, let address = channel.remoteAddress?.ipAddress {
                        if let refusal = gate.admit(address) {
                            try pipeline.addHandler(StompRefusedConnection(reason: refusal))
                            return
                        }
                        try pipeline.addHandler(StompAddressSlot(gate: gate, address: address))
                    }
                    try pipeline.addHandler(StompTransportHandler<StompTCPTransport>(broker: broker, transportToken: nil))
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}

/// Plain TCP carries STOMP bytes as they are.
enum StompTCPTransport: StompTransport {
    static func bytes(of message: ByteBuffer) -> ByteBuffer { message }
    static func message(carrying bytes: ByteBuffer, isUTF8: Bool?) -> ByteBuffer { bytes }
    /// A byte stream has no messages; the session bounds what it buffers itself.
    static func limitMessages(_ context: ChannelHandlerContext, to size: Int) {}
    static func frameWriter(_ context: ChannelHandlerContext) -> WebSocketFrameWriter? { nil }
}
