import NIOCore
import Testing
@_spi(Tooling) @testable import WebSocket

@Suite struct FrameParserTests {
    static let maximum = 1 << 20

    func parseAll(_ chunks: [[UInt8]], maximum: Int = Self.maximum, compression: Bool = false) throws(WebSocketProtocolError) -> [WebSocketFrame] {
        var parser = WebSocketFrameParser(maximumPayloadLength: maximum, allowsCompressedMessages: compression)
        var buffer = ByteBuffer()
        var frames = [WebSocketFrame]()
        for chunk in chunks {
            buffer.writeBytes(chunk)
            while let frame = try parser.nextFrame(from: &buffer) { frames.append(frame) }
        }
        #expect(buffer.readableBytes == 0)
        return frames
    }

    func error(_ bytes: [UInt8], maximum: Int = Self.maximum, compression: Bool = false) -> WebSocketProtocolError? {
        do {
            _ = try self.parseAll([bytes], maximum: maximum, compression: compression)
            return nil
        } catch {
            return error
        }
    }

    /// A stream touching every length encoding, control frames between fragments, and masks.
    static let stream: [ClientFrame] = [
        .text("Hello"),
        .binary([UInt8](repeating: 0xAB, count: 126)),
        .text("frag", fin: false),
        .ping(Array("are you there".utf8)),
        .continuation(Array("mented".utf8)),
        .binary((0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) }),
        .continuation([], fin: true),
        .pong(),
        .binary([]),
        .close(code: 1000, reason: Array("bye".utf8)),
    ]

    static var expected: [WebSocketFrame] {
        stream.map {
            WebSocketFrame(fin: $0.fin, rsv1: false, opcode: WebSocketOpcode(rawValue: $0.opcode)!, payload: ByteBuffer(bytes: $0.payload))
        }
    }

    @Test func wholeStreamParsesToTheSentFrames() throws {
        let frames = try self.parseAll([Self.stream.flatMap(\.bytes)])
        #expect(frames == Self.expected)
    }

    @Test func byteByByteSplitGivesTheSameFrames() throws {
        let frames = try self.parseAll(Self.stream.flatMap(\.bytes).map { [$0] })
        #expect(frames == Self.expected)
    }

    @Test(arguments: [1, 2, 3, 42, 2026, 0xDEAD_BEEF] as [UInt64])
    func randomSplitsGiveTheSameFrames(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let bytes = Self.stream.flatMap(\.bytes)
        for _ in 0..<50 {
            var chunks = [[UInt8]]()
            var index = 0
            while index < bytes.count {
                let size = Int.random(in: 1...300, using: &random)
                chunks.append(Array(bytes[index..<min(index + size, bytes.count)]))
                index += size
            }
            #expect(try self.parseAll(chunks) == Self.expected)
        }
    }

    @Test func unmaskedClientFrameIs1002() {
        var frame = ClientFrame.text("hi")
        frame.mask = nil
        #expect(self.error(frame.bytes)?.code == .protocolError)
    }

    @Test(arguments: [1, 2, 4, 5, 6, 7] as [UInt8])
    func reservedBitsWithoutExtensionAre1002(rsv: UInt8) {
        var frame = ClientFrame.text("hi")
        frame.rsv = rsv
        #expect(self.error(frame.bytes)?.code == .protocolError)
    }

    @Test func rsv1IsAllowedOnlyOnFirstDataFrameWithDeflate() {
        var first = ClientFrame.text("x")
        first.rsv = 4
        #expect(self.error(first.bytes, compression: true) == nil)
        var continuation = ClientFrame.continuation([1])
        continuation.rsv = 4
        #expect(self.error(continuation.bytes, compression: true)?.code == .protocolError)
        var ping = ClientFrame.ping()
        ping.rsv = 4
        #expect(self.error(ping.bytes, compression: true)?.code == .protocolError)
        var rsv2 = ClientFrame.text("x")
        rsv2.rsv = 2
        #expect(self.error(rsv2.bytes, compression: true)?.code == .protocolError)
    }

    @Test(arguments: [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] as [UInt8])
    func reservedOpcodesAre1002(opcode: UInt8) {
        #expect(self.error(ClientFrame(opcode: opcode, payload: []).bytes)?.code == .protocolError)
    }

    @Test func controlFramesMustBeShortAndUnfragmented() {
        #expect(self.error(ClientFrame(opcode: 0x9, payload: .init(repeating: 0, count: 126)).bytes)?.code == .protocolError)
        #expect(self.error(ClientFrame(fin: false, opcode: 0x9, payload: []).bytes)?.code == .protocolError)
        #expect(self.error(ClientFrame(opcode: 0x9, payload: .init(repeating: 0, count: 125)).bytes) == nil)
    }

    @Test func topBitOfA64BitLengthIs1002() {
        let header: [UInt8] = [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1]
        #expect(self.error(header)?.code == .protocolError)
    }

    @Test func oversizedFrameIs1009FromItsHeaderAlone() {
        // Only the header is fed: the payload is refused before any of it arrives.
        let sixteenBit: [UInt8] = [0x82, 0xFE, 0x01, 0x01]
        #expect(self.error(sixteenBit, maximum: 256)?.code == .messageTooBig)
        let sixtyFourBit: [UInt8] = [0x82, 0xFF, 0, 0, 0, 1, 0, 0, 0, 0]
        #expect(self.error(sixtyFourBit)?.code == .messageTooBig)
    }

    @Test func badFirstBytesFailBeforeTheRestOfTheHeader() {
        var parser = WebSocketFrameParser(maximumPayloadLength: 100, allowsCompressedMessages: false)
        var oneByte = ByteBuffer(bytes: [0x83])
        #expect(throws: Never.self, "one byte is not yet enough to judge") { try parser.nextFrame(from: &oneByte) }
        #expect(self.error([0x83, 0x80])?.code == .protocolError)
    }

    @Test(arguments: [0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 100, 1000])
    func wordAtATimeUnmaskingMatchesTheByteRule(length: Int) {
        var random = SeededGenerator(seed: UInt64(length))
        let key = WebSocketMaskingKey(value: UInt32.random(in: 0...UInt32.max, using: &random))
        let original = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
        for offset in 0..<4 {
            var bytes = original
            bytes.withUnsafeMutableBytes { key.unmask($0, offset: offset) }
            let expected = original.enumerated().map { $0.element ^ key.byte(at: $0.offset + offset) }
            #expect(bytes == expected)
        }
    }

    @Test func serverHeadersUseTheShortestLength() {
        for (length, size) in [(0, 2), (125, 2), (126, 4), (65535, 4), (65536, 10)] {
            var buffer = ByteBuffer()
            WebSocketFrame.writeServerHeader(fin: true, rsv1: false, opcode: .binary, length: length, into: &buffer)
            #expect(buffer.readableBytes == size)
            #expect(buffer.getInteger(at: 0, as: UInt8.self) == 0x82)
        }
    }
}
