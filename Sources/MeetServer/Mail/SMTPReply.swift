import NIOCore

/// One complete SMTP reply: its code and the text of each of its lines (`250-STARTTLS`,
/// `250 SIZE 1000` → 250, `["STARTTLS", "SIZE 1000"]`).
struct SMTPReply: Sendable {
    var code: Int
    var lines: [String]
}

/// Cuts the server's bytes into replies: lines end in CRLF (a bare LF is taken too); `NNN-`
/// continues a reply, `NNN ` (or a bare `NNN`) ends it.
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply

    /// The longest reply line accepted (RFC 5321 allows 512 bytes).
    static let maximumLine = 4096
    private var lines: [String] = []

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            guard buffer.readableBytes <= Self.maximumLine else { throw SMTPError.refused("a reply line over \(Self.maximumLine) bytes") }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        var line = buffer.readString(length: length) ?? ""
        buffer.moveReaderIndex(forwardBy: 1)
        if line.hasSuffix("\r") { line.removeLast() }
        let bytes = Array(line.utf8)
        guard bytes.count >= 3, let code = Int(String(decoding: bytes.prefix(3), as: UTF8.self)) else {
            throw SMTPError.refused("not an SMTP reply: \(line)")
        }
        lines.append(bytes.count > 4 ? String(decoding: bytes.dropFirst(4), as: UTF8.self) : "")
        if bytes.count > 3, bytes[3] == UInt8(ascii: "-") { return .continue }
        context.fireChannelRead(wrapInboundOut(SMTPReply(code: code, lines: lines)))
        lines = []
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}

/// Hands each reply to the waiting conversation, and ends it when the connection goes.
final class SMTPReplyHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = SMTPReply

    let continuation: AsyncThrowingStream<SMTPReply, any Error>.Continuation

    init(continuation: AsyncThrowingStream<SMTPReply, any Error>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: SMTPError.transient("\(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
    }
}
