import NIOCore
import Stomp

/// Decode and encode throughput of typical chat frames, in one thread.
enum CodecBenchmark {
    static func run(iterations: Int) {
        let body = String(repeating: "x", count: 100)
        let send = StompFrame(.send, headers: ["destination": "/app/meetings.42.chat", "content-type": "application/json",
                                               "receipt": "r-1"], text: body)
        let wireFrame = StompFrameEncoder.encode(send, version: .v1_2)
        // Many frames per read, as a busy connection delivers them.
        var batch = ByteBuffer()
        for _ in 0..<64 { batch.writeImmutableBuffer(wireFrame) }

        var decoder = StompFrameDecoder()
        decoder.version = .v1_2
        var decoded = 0
        let decodeStart = NIODeadline.now()
        for _ in 0..<(iterations / 64) {
            var input = batch
            while let frame = try! decoder.next(from: &input) { decoded += frame.body.readableBytes > 0 ? 1 : 0 }
        }
        report("decode SEND (100 B body)", count: decoded, bytes: decoded * wireFrame.readableBytes, since: decodeStart)

        let message = StompFrame(.message, headers: ["subscription": "sub-0", "message-id": "12345", "destination": "/topic/meetings.42.chat",
                                                     "content-type": "application/json", "seq": "77"], text: body)
        var out = ByteBufferAllocator().buffer(capacity: 64 * 1024)
        var encodedBytes = 0
        let encodeStart = NIODeadline.now()
        for _ in 0..<iterations {
            StompFrameEncoder.write(message, version: .v1_2, into: &out)
            encodedBytes += out.readableBytes
            out.clear()
        }
        report("encode MESSAGE (100 B body)", count: iterations, bytes: encodedBytes, since: encodeStart)
    }

    static func report(_ name: String, count: Int, bytes: Int, since start: NIODeadline) {
        let seconds = Double((NIODeadline.now() - start).nanoseconds) / 1e9
        let perSecond = Double(count) / seconds
        print("\(name): \(count) frames in \(format(seconds)) s = \(format(perSecond / 1e6)) M frames/s, "
              + "\(format(Double(bytes) / seconds / 1e6)) MB/s, \(format(seconds / Double(count) * 1e9)) ns/frame")
    }
}

func format(_ value: Double) -> String {
    let rounded = (value * 100).rounded() / 100
    return String(rounded)
}
