import NIOCore
@_spi(Tooling) import WebSocket

extension Array {
    var nonEmpty: Self? { self.isEmpty ? nil : self }
}

/// Decode and encode throughput of the WebSocket layer, without sockets.
///
/// Decode: masked client frames → validated messages (text, so UTF-8 validation is paid),
/// plain and permessage-deflate. Encode: messages → server frames, plain and compressed.
/// Build and run in release mode: `swift run -c release WebSocketBenchmark [sizes...]`.
@main
enum WebSocketBenchmark {
    /// Message sizes measured; pass sizes as arguments to measure only those.
    static let sizes = CommandLine.arguments.dropFirst().compactMap { Int($0) }.nonEmpty ?? [100, 4096, 1 << 20]
    /// Roughly how many payload bytes each measurement moves.
    static let bytesPerRound = 64 << 20

    static func main() {
        print("operation  size      mode        MB/s        messages/s")
        for size in Self.sizes {
            let message = Self.chatText(size: size)
            let count = max(Self.bytesPerRound / size, 20)
            for compressed in [false, true] {
                let mode = compressed ? "deflate" : "plain"
                let decode = Self.measureDecode(message, count: count, compressed: compressed)
                Self.report("decode", size: size, mode: "masked " + mode, count: count, seconds: decode)
                let encode = Self.measureEncode(message, count: count, compressed: compressed)
                Self.report("encode", size: size, mode: mode, count: count, seconds: encode)
            }
        }
        // One broadcast written to 1,000 subscribers of a loop: the same buffer, 1,000 encoders.
        let broadcast = Self.chatText(size: 100)
        for (mode, compressed, shared) in [("plain", false, false), ("deflate own", true, false), ("deflate shared", true, true)] {
            let seconds = Self.measureBroadcast(broadcast, subscribers: 1000, rounds: 200, compressed: compressed, shared: shared)
            Self.report("broadcast", size: 100, mode: mode, count: 1000 * 200, seconds: seconds)
        }
    }

    /// Encodes `message` for each of `subscribers` connections, `rounds` times: with its own
    /// compressor per connection (context takeover, as before issue 9), or each message on its
    /// own with the thread's shared compressor, which compresses a broadcast once.
    static func measureBroadcast(_ message: WebSocketMessage, subscribers: Int, rounds: Int, compressed: Bool, shared: Bool) -> Double {
        let encoders = (0..<subscribers).map { _ in
            WebSocketMessageEncoder(perMessageDeflate: compressed, serverNoContextTakeover: shared)
        }
        var best = Double.infinity
        for _ in 0..<3 {
            var bytes = 0
            let start = ContinuousClock.now
            for _ in 0..<rounds {
                // A new message each round, in storage of its own, shared by its recipients.
                let round = WebSocketMessage(kind: message.kind, data: ByteBuffer(bytes: message.data.readableBytesView))
                for encoder in encoders {
                    let (header, payload) = try! encoder.encode(round, allocator: .init())
                    bytes &+= header.readableBytes &+ payload.readableBytes
                }
            }
            best = min(best, Self.seconds(ContinuousClock.now - start))
            precondition(bytes > 0)
        }
        return best
    }

    /// Text that compresses like chat does: words from a small vocabulary.
    static func chatText(size: Int) -> WebSocketMessage {
        let words = ["meet", "at", "the", "café", "near", "station", "tomorrow", "7pm", "ok", "👍"]
        var generator = SystemRandomNumberGenerator()
        var text = ""
        while text.utf8.count < size { text += words.randomElement(using: &generator)! + " " }
        var bytes = Array(text.utf8.prefix(size))
        while String(validating: bytes, as: UTF8.self) == nil { bytes[bytes.count - 1] = UInt8(ascii: " ") }
        return WebSocketMessage(kind: .text, data: ByteBuffer(bytes: bytes))
    }

    static func measureDecode(_ message: WebSocketMessage, count: Int, compressed: Bool) -> Double {
        // What a client would send: the (compressed) payloads of `count` messages, masked.
        let clientEncoder = WebSocketMessageEncoder(perMessageDeflate: compressed)
        var stream = ByteBuffer()
        for index in 0..<count {
            let (header, payload) = try! clientEncoder.encode(message, allocator: .init())
            Self.writeMasked(header: header, payload: payload, key: UInt32(truncatingIfNeeded: index &* 2_654_435_761), into: &stream)
        }
        var best = Double.infinity
        for _ in 0..<3 {
            var input = stream
            input.withUnsafeMutableReadableBytes { _ in }  // the copy happens here, untimed
            var decoder = WebSocketDecoder(maximumMessageSize: 16 << 20, perMessageDeflate: compressed)
            var decoded = 0
            let start = ContinuousClock.now
            while let event = try! decoder.next(from: &input) {
                if case .message = event { decoded += 1 }
            }
            best = min(best, Self.seconds(ContinuousClock.now - start))
            precondition(decoded == count)
        }
        return best
    }

    static func measureEncode(_ message: WebSocketMessage, count: Int, compressed: Bool) -> Double {
        var best = Double.infinity
        for _ in 0..<3 {
            let encoder = WebSocketMessageEncoder(perMessageDeflate: compressed)
            var bytes = 0
            let start = ContinuousClock.now
            for _ in 0..<count {
                let (header, payload) = try! encoder.encode(message, allocator: .init())
                bytes &+= header.readableBytes &+ payload.readableBytes
            }
            best = min(best, Self.seconds(ContinuousClock.now - start))
            precondition(bytes > 0)
        }
        return best
    }

    /// Turns a server frame into the client's form: mask bit set, key, masked payload.
    static func writeMasked(header: ByteBuffer, payload: ByteBuffer, key: UInt32, into stream: inout ByteBuffer) {
        var header = header
        let first = header.readInteger(as: UInt8.self)!
        let second = header.readInteger(as: UInt8.self)!
        stream.writeMultipleIntegers(first, second | 0x80)
        stream.writeBuffer(&header)
        stream.writeInteger(key)
        var index = 0
        for byte in payload.readableBytesView {
            stream.writeInteger(byte ^ UInt8(truncatingIfNeeded: key >> UInt32(24 - 8 * (index & 3))))
            index += 1
        }
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func report(_ operation: String, size: Int, mode: String, count: Int, seconds: Double) {
        let megabytesPerSecond = Double(size * count) / 1_000_000 / seconds
        let messagesPerSecond = Double(count) / seconds
        var line = pad(operation, 10) + " " + pad(String(size), 9) + " " + pad(mode, 15) + " "
        line += pad(String(Int(megabytesPerSecond)), 12) + " " + String(Int(messagesPerSecond))
        print(line)
    }
}
