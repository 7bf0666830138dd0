import FuzzDriver
import NIOCore
import Stomp

/// libFuzzer entry point for the STOMP frame decoder.
///
/// The first byte picks the version and how the rest is split into reads, so the fuzzer explores
/// partial input as a transport would deliver it. Every frame decoded is re-encoded and decoded
/// again: the decoder must never crash, and what it accepts must survive our own encoder.
///
///     swift build --product StompFuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
///     .build/debug/StompFuzz -max_total_time=600 Tests/Fuzz/StompFuzz/corpus
@_cdecl("LLVMFuzzerTestOneInput")
public func stompFuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let control = data[0]
    let input = UnsafeBufferPointer(start: data + 1, count: size - 1)
    let version = StompVersion.allCases[Int(control & 0x03) % 3]
    let chunk = Int(control >> 2) + 1
    let limits = StompLimits(maxCommandLength: 32, maxHeaderCount: 16, maxHeaderLength: 256, maxBodySize: 4096)

    var decoder = StompFrameDecoder(limits: limits)
    decoder.version = version
    var buffer = ByteBuffer()
    var offset = 0
    do {
        while offset < input.count {
            let end = min(offset + chunk, input.count)
            buffer.writeBytes(UnsafeBufferPointer(rebasing: input[offset..<end]))
            offset = end
            while let frame = try decoder.next(from: &buffer) {
                checkRoundTrip(frame, version: version, limits: limits)
            }
        }
    } catch {
        // Refusing input is fine; only crashes and broken round trips are findings.
    }
    return 0
}

private func checkRoundTrip(_ frame: StompFrame, version: StompVersion, limits: StompLimits) {
    var decoder = StompFrameDecoder(limits: StompLimits(maxBodySize: limits.maxBodySize))
    decoder.version = version
    var wire = StompFrameEncoder.encode(frame, version: version)
    guard let again = try? decoder.next(from: &wire) else {
        fatalError("re-encoded frame does not decode: \(frame)")
    }
    // Without escaping (STOMP 1.0/1.1, and CONNECT/STOMP/CONNECTED in any version) a header
    // ending in CR cannot be written unambiguously, since we accept CRLF line ends everywhere:
    // such trailing CRs are the one thing a round trip may lose.
    let unescaped = version != .v1_2 || [.connect, .stomp, .connected].contains(frame.command)
    let trim = { (text: String) in unescaped ? String(text.reversed().drop { $0 == "\r" }.reversed()) : text }
    let withoutLength = { (headers: StompHeaders) in
        headers.pairs.filter { $0.name != "content-length" }.map { "\(trim($0.name)):\(trim($0.value))" }
    }
    precondition(again.command == frame.command && again.body == frame.body, "round trip changed \(frame)")
    precondition(withoutLength(again.headers) == withoutLength(frame.headers), "round trip changed headers of \(frame)")
}

@main
enum StompFuzzMain {
    static func main() {
        runFuzzTarget(stompFuzzOne)
    }
}
