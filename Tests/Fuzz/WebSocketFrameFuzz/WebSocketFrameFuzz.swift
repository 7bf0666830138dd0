import FuzzDriver
import NIOCore
@_spi(Tooling) import WebSocket

/// libFuzzer entry point: feeds arbitrary bytes to the WebSocket frame decoder.
///
/// The first byte picks the options (bit 0: permessage-deflate on; bit 1: the client's context
/// dropped after each message, so whole messages go through the thread's shared inflater while
/// fragmented ones keep their own) and the size of the reads the rest is cut into (bits 2-7), so
/// splits and both ways of inflating are explored too. Decoding
/// errors are the expected outcome for most inputs; crashes, hangs and sanitizer reports are
/// what the fuzzer looks for.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketDecoder(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeBufferPointer(start: start, count: count)
    guard let options = input.first else { return 0 }
    var decoder = WebSocketDecoder(
        maximumMessageSize: 1 << 16, perMessageDeflate: options & 1 != 0, clientNoContextTakeover: options & 2 != 0)
    let readSize = Int(options >> 2) + 1
    var buffer = ByteBuffer()
    var rest = input.dropFirst()
    while !rest.isEmpty {
        buffer.writeBytes(rest.prefix(readSize))
        rest = rest.dropFirst(readSize)
        do {
            while let event = try decoder.next(from: &buffer) {
                if case .message(let message) = event, message.kind == .text {
                    // A text message that got through must be UTF-8 by the standard library's
                    // independent reckoning too.
                    precondition(String(validating: message.data.readableBytesView, as: UTF8.self) != nil)
                }
            }
        } catch {
            return 0
        }
    }
    return 0
}

@main
enum WebSocketFrameFuzz {
    static func main() {
        runFuzzTarget(fuzzWebSocketDecoder)
    }
}
