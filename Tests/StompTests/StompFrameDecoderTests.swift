import NIOCore
import Testing
@testable import Stomp

@Suite struct StompFrameDecoderTests {
    @Test func decodesCommandHeadersAndBody() throws {
        let frames = try decodeAll("SEND\ndestination:/topic/a\ncontent-type:text/plain\n\nhello\0")
        #expect(frames == [StompFrame(.send, headers: ["destination": "/topic/a", "content-type": "text/plain"], text: "hello")])
    }

    @Test func acceptsCRLFLineEnds() throws {
        let frames = try decodeAll("SEND\r\ndestination:/topic/a\r\n\r\nhi\0")
        #expect(frames == [StompFrame(.send, headers: ["destination": "/topic/a"], text: "hi")])
    }

    @Test func skipsHeartBeatEOLsBetweenFrames() throws {
        let frames = try decodeAll("\n\r\n\nDISCONNECT\n\n\0\n\r\n\nDISCONNECT\n\n\0\n")
        #expect(frames.map(\.command) == [.disconnect, .disconnect])
    }

    @Test func firstRepeatedHeaderWins() throws {
        let frame = try #require(try decodeAll("SEND\ndestination:/topic/a\ndestination:/topic/b\n\n\0").first)
        #expect(frame.headers["destination"] == "/topic/a")
        #expect(frame.headers.count == 2)
    }

    @Test func contentLengthBodyMayContainNUL() throws {
        let frame = try #require(try decodeAll("SEND\ndestination:/d\ncontent-length:5\n\na\0b\0c\0").first)
        #expect(Array(frame.body.readableBytesView) == [97, 0, 98, 0, 99])
    }

    @Test func contentLengthBodyMustEndWithNUL() {
        #expect(throws: StompProtocolError.bodyNotTerminated) {
            try decodeAll("SEND\ndestination:/d\ncontent-length:2\n\nabc\0")
        }
    }

    @Test(arguments: ["-1", "x", "", "1 2", "99999999999999999999999"])
    func refusesInvalidContentLength(value: String) {
        #expect(throws: StompProtocolError.invalidContentLength(value)) {
            try decodeAll("SEND\ndestination:/d\ncontent-length:\(value)\n\n\0")
        }
    }

    @Test func unescapesHeadersPerVersion() throws {
        let raw = "MESSAGE\nkey\\cname:a\\nb\\\\c\\cd\n\n\0"
        let v12 = try #require(try decodeAll(raw, version: .v1_2).first)
        #expect(v12.headers["key:name"] == "a\nb\\c:d")
        let v11 = try #require(try decodeAll(raw, version: .v1_1).first)
        #expect(v11.headers["key:name"] == "a\nb\\c:d")
        let v10 = try #require(try decodeAll(raw, version: .v1_0).first)
        #expect(v10.headers["key\\cname"] == "a\\nb\\\\c\\cd")
    }

    @Test func carriageReturnEscapeIsOnlyStomp12() throws {
        let raw = "MESSAGE\nk:a\\rb\n\n\0"
        #expect(try decodeAll(raw, version: .v1_2).first?.headers["k"] == "a\rb")
        #expect(throws: StompProtocolError.invalidEscape) { try decodeAll(raw, version: .v1_1) }
    }

    @Test(arguments: ["\\t", "\\", "\\x"])
    func refusesUndefinedEscapes(escape: String) {
        #expect(throws: StompProtocolError.invalidEscape) {
            try decodeAll("SEND\ndestination:/a\(escape)\n\n\0", version: .v1_2)
        }
    }

    @Test func connectHeadersAreNeverUnescaped() throws {
        let frame = try #require(try decodeAll("CONNECT\npasscode:a\\cb\\z\n\n\0", version: .v1_2).first)
        #expect(frame.headers["passcode"] == "a\\cb\\z")
    }

    @Test func valueMayContainColons() throws {
        #expect(try decodeAll("SEND\nk:a:b\n\n\0", version: .v1_0).first?.headers["k"] == "a:b")
    }

    @Test func refusesHeaderWithoutColon() {
        #expect(throws: StompProtocolError.malformedHeader) { try decodeAll("SEND\nnocolon\n\n\0") }
    }

    @Test func refusesUnknownCommand() {
        #expect(throws: StompProtocolError.unknownCommand("HELLO")) { try decodeAll("HELLO\n\n\0") }
        #expect(throws: StompProtocolError.unknownCommand("send")) { try decodeAll("send\n\n\0") }
    }

    @Test func refusesBodyOnFramesWithoutOne() {
        #expect(throws: StompProtocolError.bodyNotAllowed(.subscribe)) {
            try decodeAll("SUBSCRIBE\nid:1\ndestination:/topic/a\n\nbody\0")
        }
    }

    @Test func enforcesCommandLength() {
        let limits = StompLimits(maxCommandLength: 11)
        #expect(throws: StompProtocolError.commandTooLong(limit: 11)) {
            try decodeAll("ABCDEFGHIJKLMNOP", limits: limits)
        }
        #expect(throws: StompProtocolError.commandTooLong(limit: 11)) {
            try decodeAll("ABCDEFGHIJKL\n", limits: limits)
        }
    }

    @Test func enforcesHeaderCount() {
        let headers = (0..<5).map { "h\($0):v\n" }.joined()
        #expect(throws: StompProtocolError.tooManyHeaders(limit: 4)) {
            try decodeAll("SEND\n\(headers)\n\0", limits: StompLimits(maxHeaderCount: 4))
        }
        #expect(throws: Never.self) { try decodeAll("SEND\n\(headers)\n\0", limits: StompLimits(maxHeaderCount: 5)) }
    }

    @Test func enforcesHeaderLengthBeforeTheLineEnds() {
        let limits = StompLimits(maxHeaderLength: 16)
        #expect(throws: StompProtocolError.headerTooLong(limit: 16)) {
            try decodeAll("SEND\n" + String(repeating: "x", count: 100), limits: limits)
        }
        #expect(throws: Never.self) { try decodeAll("SEND\nk:" + String(repeating: "x", count: 14) + "\r\n\n\0", limits: limits) }
    }

    @Test func enforcesBodySizeWithAndWithoutContentLength() {
        let limits = StompLimits(maxBodySize: 4)
        #expect(throws: StompProtocolError.bodyTooLarge(limit: 4)) {
            try decodeAll("SEND\ncontent-length:5\n\n", limits: limits)
        }
        #expect(throws: StompProtocolError.bodyTooLarge(limit: 4)) {
            try decodeAll("SEND\n\n12345", limits: limits)
        }
        #expect(throws: Never.self) { try decodeAll("SEND\n\n1234\0", limits: limits) }
    }

    @Test func everySplitDecodesTheSameFrames() throws {
        let wire = ByteBuffer(string: "\nCONNECT\r\naccept-version:1.2\n\n\0SEND\ndestination:/topic/x\\cy\ncontent-length:3\n\na\0b\0\r\nMESSAGE\nk:v\n\nbody\0")
        let expected = try decodeAll([wire])
        #expect(expected.count == 3)
        for first in 0...wire.readableBytes {
            for second in stride(from: first, through: wire.readableBytes, by: 7) {
                #expect(try decodeAll(split(wire, at: [first, second])) == expected, "cuts \(first), \(second)")
            }
        }
    }

    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func randomSplitsOfRandomFramesRoundTrip(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for _ in 0..<50 {
            let frames = (0..<Int.random(in: 1...5, using: &random)).map { _ in randomFrame(using: &random) }
            var wire = ByteBuffer()
            for frame in frames {
                if Bool.random(using: &random) { wire.writeString("\n") }
                StompFrameEncoder.write(frame, version: .v1_2, into: &wire)
            }
            let cuts = (0..<Int.random(in: 0...20, using: &random)).map { _ in Int.random(in: 0...wire.readableBytes, using: &random) }
            let decoded = try decodeAll(split(wire, at: cuts))
            #expect(decoded.count == frames.count, "seed \(seed)")
            for (got, sent) in zip(decoded, frames) {
                #expect(got.command == sent.command && got.body == sent.body, "seed \(seed)")
                for (name, value) in sent.headers.pairs {
                    #expect(got.headers[name] == value, "seed \(seed)")
                }
            }
        }
    }

    private func randomFrame(using random: inout SplitMix64) -> StompFrame {
        let alphabet = Array("ab:\\\n\r c")
        func text() -> String { String((0..<Int.random(in: 0...8, using: &random)).map { _ in alphabet.randomElement(using: &random)! }) }
        var headers = StompHeaders()
        for index in 0..<Int.random(in: 0...4, using: &random) {
            headers.add("h\(index)\(text())", text())
        }
        let body = ByteBuffer(bytes: (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        return StompFrame([.send, .message, .error].randomElement(using: &random)!, headers: headers, body: body)
    }
}
