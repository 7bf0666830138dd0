import NIOCore

extension ChannelPipeline.SynchronousOperations {
    /// Puts the WebSocket layer on a connection as if the opening handshake had just agreed on
    /// it, permessage-deflate included if `perMessageDeflate` (with the server's default
    /// parameters: no context takeover either way). For benchmarks that measure what comes
    /// after the handshake, over real sockets.
    @_spi(Tooling) public func addWebSocketLayer(configuration: WebSocketConfiguration = WebSocketConfiguration(),
                                                 perMessageDeflate: Bool) throws {
        var parameters = PerMessageDeflateParameters()
        parameters.serverNoContextTakeover = true
        parameters.clientNoContextTakeover = true
        try self.addHandler(WebSocketConnectionHandler(configuration: configuration,
                                                       perMessageDeflate: perMessageDeflate ? parameters : nil))
    }
}
