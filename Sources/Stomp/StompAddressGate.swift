import NIOCore

/// Decides, by client address, which connections the STOMP TCP port serves, and hears when one
/// no longer counts: once it signed in (the broker's own limits bound it from then on) or closed.
public protocol StompAddressGate: Sendable {
    /// Takes a place for a connection from `address`; false refuses the connection.
    func admit(_ address: String) -> Bool
    /// Gives back a place taken by ``admit(_:)``.
    func release(_ address: String)
}

/// Sent down the pipeline (`triggerUserOutboundEvent`) by a session once it signed in.
struct StompSignedIn {}

/// Holds a connection's place at the gate until the session signs in or the connection closes.
final class StompAddressSlot: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer

    private let gate: any StompAddressGate
    private var address: String?

    init(gate: any StompAddressGate, address: String) {
        self.gate = gate
        self.address = address
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is StompSignedIn else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        giveBack()
        promise?.succeed()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        giveBack()
    }

    private func giveBack() {
        if let address { gate.release(address) }
        address = nil
    }
}

/// A connection the gate refused: one ERROR saying why, then the close; nothing it sends is read.
final class StompRefusedConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func channelActive(context: ChannelHandlerContext) {
        let refusal = StompFrame(.error, headers: ["message": "too many connections from your address; try again later"])
        let bytes = StompFrameEncoder.encode(refusal, version: .v1_2, allocator: context.channel.allocator)
        context.writeAndFlush(NIOAny(bytes)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
