import NIOCore

/// Decides which connections the STOMP TCP port serves. A connection holds a place for as long as
/// it is open (each holds a file descriptor) and a place of its client address until it signs in
/// (the broker's own limits bound it from then on).
public protocol StompAddressGate: Sendable {
    /// Takes the places of a new connection from `address`; answers why it is refused, or nil
    /// when it is served (then it holds both places).
    func admit(_ address: String) -> String?
    /// Gives back the address place of a connection that signed in.
    func signedIn(_ address: String)
    /// Gives back what a closed connection still held: its open place, and its address place
    /// unless it had signed in.
    func closed(_ address: String, signedIn: Bool)
}

/// Sent down the pipeline (`triggerUserOutboundEvent`) by a session once it signed in.
struct StompSignedIn {}

/// Holds a connection's places at the gate: its address place until the session signs in, its
/// open place until the connection closes.
final class StompAddressSlot: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer

    private let gate: any StompAddressGate
    private let address: String
    private var signedIn = false

    init(gate: any StompAddressGate, address: String) {
        self.gate = gate
        self.address = address
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is StompSignedIn else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        if !signedIn { gate.signedIn(address) }
        signedIn = true
        promise?.succeed()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        gate.closed(address, signedIn: signedIn)
    }
}

/// A connection the gate refused: one ERROR saying why, then the close; nothing it sends is read.
final class StompRefusedConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let reason: String

    init(reason: String) {
        self.reason = reason
    }

    func channelActive(context: ChannelHandlerContext) {
        let refusal = StompFrame(.error, headers: ["message": reason])
        let bytes = StompFrameEncoder.encode(refusal, version: .v1_2, allocator: context.channel.allocator)
        context.writeAndFlush(NIOAny(bytes)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
