import NIOCore

/// One STOMP frame: a command, its headers and a body of raw bytes (which may contain NUL).
public struct StompFrame: Sendable, Equatable {
    /// The frame's command.
    public var command: StompCommand
    /// The frame's headers, unescaped.
    public var headers: StompHeaders
    /// The body; empty for frames without one.
    public var body: ByteBuffer

    /// Creates a frame.
    public init(_ command: StompCommand, headers: StompHeaders = [:], body: ByteBuffer = ByteBuffer()) {
        self.command = command
        self.headers = headers
        self.body = body
    }

    /// Creates a frame whose body is the UTF-8 bytes of `text`.
    public init(_ command: StompCommand, headers: StompHeaders = [:], text: String) {
        self.init(command, headers: headers, body: ByteBuffer(string: text))
    }

    /// The body as UTF-8 text.
    public var text: String { String(buffer: body) }
}
