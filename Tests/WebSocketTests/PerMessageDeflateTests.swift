import NIOCore
import Testing
@_spi(Tooling) @testable import WebSocket

@Suite struct PerMessageDeflateNegotiationTests {
    /// A server that allows context takeover, so that only what the offer asks shows.
    static let keepsContext: PerMessageDeflateConfiguration = {
        var configuration = PerMessageDeflateConfiguration()
        configuration.serverNoContextTakeover = false
        configuration.clientNoContextTakeover = false
        return configuration
    }()

    func negotiate(_ header: String, _ configuration: PerMessageDeflateConfiguration = keepsContext) -> String? {
        PerMessageDeflateNegotiation.negotiate(offers: [header], configuration: configuration)?.responseValue
    }

    @Test func plainOfferIsAcceptedPlainly() {
        #expect(self.negotiate("permessage-deflate") == "permessage-deflate")
    }

    @Test func byDefaultTheServerAnswersEveryOfferWithoutContextTakeoverEitherWay() {
        #expect(self.negotiate("permessage-deflate; client_max_window_bits", .init())
            == "permessage-deflate; server_no_context_takeover; client_no_context_takeover")
    }

    @Test func allFourParametersAreHonoured() {
        #expect(
            self.negotiate(
                "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits=12"
            )
                == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits=12"
        )
    }

    @Test func clientMaxWindowBitsWithoutValueIsAnsweredOnlyWhenTheServerWantsLess() {
        #expect(self.negotiate("permessage-deflate; client_max_window_bits") == "permessage-deflate")
        var small = Self.keepsContext
        small.clientMaxWindowBits = 10
        #expect(self.negotiate("permessage-deflate; client_max_window_bits", small) == "permessage-deflate; client_max_window_bits=10")
        #expect(self.negotiate("permessage-deflate", small) == "permessage-deflate", "not offered, so not answered")
    }

    @Test func quotedValuesAreAccepted() {
        #expect(self.negotiate("permessage-deflate; server_max_window_bits=\"11\"") == "permessage-deflate; server_max_window_bits=11")
    }

    @Test(arguments: [
        "permessage-deflate; server_max_window_bits", "permessage-deflate; server_max_window_bits=16",
        "permessage-deflate; server_max_window_bits=7", "permessage-deflate; server_max_window_bits=8",
        "permessage-deflate; server_max_window_bits=010", "permessage-deflate; client_max_window_bits=abc",
        "permessage-deflate; server_no_context_takeover=1", "permessage-deflate; foo",
        "permessage-deflate; client_no_context_takeover; client_no_context_takeover", "x-webkit-deflate-frame",
    ])
    func invalidOffersAreDeclined(offer: String) {
        #expect(self.negotiate(offer) == nil)
    }

    @Test func laterOfferIsTakenWhenTheFirstIsDeclined() {
        #expect(
            self.negotiate("permessage-deflate; server_max_window_bits=8, permessage-deflate; client_max_window_bits")
                == "permessage-deflate"
        )
    }
}

@Suite struct PerMessageDeflateCodecTests {
    static func codec(_ parameters: PerMessageDeflateParameters = .init()) -> PerMessageDeflate {
        var configuration = PerMessageDeflateConfiguration()
        configuration.minimumMessageSize = 1
        return PerMessageDeflate(parameters: parameters, configuration: configuration)
    }

    func inflate(_ codec: PerMessageDeflate, _ fragments: [ByteBuffer], limit: Int = 1 << 20) throws(WebSocketProtocolError) -> ByteBuffer {
        var output = ByteBuffer()
        for (index, fragment) in fragments.enumerated() {
            try codec.inflate(fragment, isFinal: index == fragments.count - 1, into: &output, limit: limit)
        }
        return output
    }

    @Test func inflatesTheRFC7692Example() throws {
        let hello = ByteBuffer(bytes: [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        #expect(try self.inflate(Self.codec(), [hello]) == ByteBuffer(string: "Hello"))
        // The same message split across two frames.
        let split = [ByteBuffer(bytes: [0xF2, 0x48, 0xCD]), ByteBuffer(bytes: [0xC9, 0xC9, 0x07, 0x00])]
        #expect(try self.inflate(Self.codec(), split) == ByteBuffer(string: "Hello"))
    }

    @Test(arguments: [false, true])
    func roundTripsManyMessagesWithAndWithoutContextTakeover(noContextTakeover: Bool) throws {
        var parameters = PerMessageDeflateParameters()
        parameters.serverNoContextTakeover = noContextTakeover
        parameters.clientNoContextTakeover = noContextTakeover
        let sender = Self.codec(parameters)
        let receiver = Self.codec(parameters)
        var random = SeededGenerator(seed: 7)
        for round in 0..<20 {
            let size = [100, 4096, 200_000][round % 3]
            let words = ["meet", "up", "chat", "room", "hello", "42"]
            let text = (0..<size / 4).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
            let message = ByteBuffer(string: text)
            let compressed = try #require(try sender.compress(message, allocator: .init()))
            #expect(compressed.readableBytes < message.readableBytes)
            #expect(try self.inflate(receiver, [compressed]) == message)
        }
    }

    @Test func incompressibleMessagesAreSentAsTheyAreOnlyWithoutContextTakeover() throws {
        var random = SeededGenerator(seed: 3)
        let noise = ByteBuffer(bytes: (0..<1000).map { _ in UInt8.random(in: 0...255, using: &random) })
        var forgetful = PerMessageDeflateParameters()
        forgetful.serverNoContextTakeover = true
        #expect(try Self.codec(forgetful).compress(noise, allocator: .init()) == nil)
    }

    /// Issue 9: with context takeover the compressor keeps every message it saw in its window,
    /// so each must reach the peer's inflater, or later back-references point at bytes it lacks.
    @Test func withContextTakeoverEveryMessageTheCompressorSawGoesOutCompressed() throws {
        var random = SeededGenerator(seed: 5)
        let noise = ByteBuffer(bytes: (0..<200).map { _ in UInt8.random(in: 0...255, using: &random) })
        let sender = Self.codec()
        let receiver = Self.codec()
        let first = try #require(try sender.compress(noise, allocator: .init()))
        #expect(try self.inflate(receiver, [first]) == noise)
        // The second message repeats the first: its compressed form refers back into it.
        let second = try #require(try sender.compress(noise, allocator: .init()))
        #expect(second.readableBytes < 20)
        #expect(try self.inflate(receiver, [second]) == noise)
    }

    @Test func compressionBombIsStoppedAtTheCap() throws {
        let sender = Self.codec()
        let bomb = try #require(try sender.compress(ByteBuffer(repeating: 0, count: 10 << 20), allocator: .init()))
        #expect(bomb.readableBytes < 20_000)
        #expect(throws: WebSocketProtocolError.messageTooBig) {
            try self.inflate(Self.codec(), [bomb], limit: 1 << 20)
        }
    }

    @Test func garbageIsInvalidPayloadData() {
        #expect(throws: WebSocketProtocolError.self) {
            try self.inflate(Self.codec(), [ByteBuffer(bytes: [0xFF, 0xFF, 0xFF, 0xFF, 0x00])])
        }
    }
}

/// The thread's shared zlib streams that connections without context takeover borrow.
@Suite struct PerMessageDeflateSharedStreamTests {
    static func forgetful() -> PerMessageDeflate {
        var parameters = PerMessageDeflateParameters()
        parameters.serverNoContextTakeover = true
        parameters.clientNoContextTakeover = true
        return PerMessageDeflate(parameters: parameters, configuration: .init())
    }

    @Test func aBroadcastIsCompressedOnceForEveryConnectionOfTheThread() throws {
        let broadcast = ByteBuffer(string: String(repeating: "{\"text\":\"see you at the station\"} ", count: 8))
        let outputs = try (0..<3).map { _ in try #require(try Self.forgetful().compress(broadcast, allocator: .init())) }
        let addresses = outputs.map { $0.withUnsafeReadableBytes { $0.baseAddress } }
        #expect(Set(addresses).count == 1, "one compressed buffer shared by all")
        // The same bytes in another buffer are compressed again, to the same result.
        let copy = ByteBuffer(string: String(buffer: broadcast))
        let again = try #require(try Self.forgetful().compress(copy, allocator: .init()))
        #expect(again == outputs[0] && again.withUnsafeReadableBytes { $0.baseAddress } != addresses[0])
    }

    @Test func aMessageInSeveralFramesKeepsItsOwnInflaterWhileOthersUseTheSharedOne() throws {
        let long = ByteBuffer(string: String(repeating: "fragmented and compressed ", count: 100))
        let short = ByteBuffer(string: String(repeating: "whole ", count: 30))
        var longCompressed = try #require(try Self.forgetful().compress(long, allocator: .init()))
        let shortCompressed = try #require(try Self.forgetful().compress(short, allocator: .init()))
        let first = longCompressed.readSlice(length: longCompressed.readableBytes / 2)!
        let (a, b) = (Self.forgetful(), Self.forgetful())
        var aOutput = ByteBuffer()
        var bOutput = ByteBuffer()
        try a.inflate(first, isFinal: false, into: &aOutput, limit: 1 << 20)
        try b.inflate(shortCompressed, isFinal: true, into: &bOutput, limit: 1 << 20)
        try a.inflate(longCompressed, isFinal: true, into: &aOutput, limit: 1 << 20)
        #expect(aOutput == long && bOutput == short)
    }
}
