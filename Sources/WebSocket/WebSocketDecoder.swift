import NIOCore

/// Turns the bytes a client sends into messages and control frames: the frame parser and
/// the message assembler (with inflation) in one step.
///
/// The connection handler runs on it; the SPI lets the fuzzer and the benchmark drive the
/// exact same code without a channel.
@_spi(Tooling) public struct WebSocketDecoder {
    /// What the bytes amounted to.
    public enum Event: Hashable, Sendable {
        /// A complete, validated, inflated message.
        case message(WebSocketMessage)
        /// A ping with its payload.
        case ping(ByteBuffer)
        /// A pong with its payload.
        case pong(ByteBuffer)
        /// A close frame's raw payload.
        case close(ByteBuffer)
    }

    private var parser: WebSocketFrameParser
    private var assembler: WebSocketMessageAssembler
    private let deflate: PerMessageDeflate?
    /// False once the parser itself failed: the byte stream cannot be followed any further.
    /// Errors in a message's content (UTF-8, size, inflation) leave the framing intact.
    public private(set) var framingIntact = true

    /// A decoder with permessage-deflate, if `perMessageDeflate`: with the client's context
    /// kept across messages, or inflating each message on its own if `clientNoContextTakeover`.
    public init(maximumMessageSize: Int, perMessageDeflate: Bool, clientNoContextTakeover: Bool = false) {
        var parameters = PerMessageDeflateParameters()
        parameters.clientNoContextTakeover = clientNoContextTakeover
        self.init(
            maximumMessageSize: maximumMessageSize,
            deflate: perMessageDeflate ? PerMessageDeflate(parameters: parameters, configuration: .init()) : nil
        )
    }

    init(maximumMessageSize: Int, deflate: PerMessageDeflate?) {
        self.parser = WebSocketFrameParser(
            maximumPayloadLength: maximumMessageSize,
            allowsCompressedMessages: deflate != nil
        )
        self.assembler = WebSocketMessageAssembler(maximumMessageLength: maximumMessageSize)
        self.deflate = deflate
    }

    /// The largest message (and frame) accepted, after inflation; the application may lower or
    /// raise it as the connection goes on (``WebSocketMessageSizeLimit``).
    public var maximumMessageSize: Int {
        get { self.assembler.maximumMessageLength }
        set {
            self.parser.maximumPayloadLength = newValue
            self.assembler.maximumMessageLength = newValue
        }
    }

    /// The payload bytes the frame being parsed still needs, 0 between frames.
    public var pendingPayloadLength: Int { self.parser.pendingPayloadLength }

    /// Consumes bytes from `buffer` until it yields an event, or returns `nil` when the
    /// remaining bytes do not finish one yet (they stay in `buffer`).
    public mutating func next(from buffer: inout ByteBuffer) throws(WebSocketProtocolError) -> Event? {
        while true {
            let frame: WebSocketFrame
            do {
                guard let next = try self.parser.nextFrame(from: &buffer) else { return nil }
                frame = next
            } catch {
                self.framingIntact = false
                throw error
            }
            switch frame.opcode {
            case .ping: return .ping(frame.payload)
            case .pong: return .pong(frame.payload)
            case .close: return .close(frame.payload)
            case .text, .binary, .continuation:
                if let message = try self.assembler.append(frame, deflate: self.deflate) {
                    return .message(message)
                }
            }
        }
    }
}
