import NIOCore
@testable import Stomp

/// A deterministic generator, so that a failing property test names a seed that reproduces it.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Decodes `chunks` fed one after the other, as a transport would deliver them.
func decodeAll(_ chunks: [ByteBuffer], version: StompVersion = .v1_2,
               limits: StompLimits = StompLimits()) throws(StompProtocolError) -> [StompFrame] {
    var decoder = StompFrameDecoder(limits: limits)
    decoder.version = version
    var buffer = ByteBuffer()
    var frames: [StompFrame] = []
    for chunk in chunks {
        buffer.writeImmutableBuffer(chunk)
        while let frame = try decoder.next(from: &buffer) {
            frames.append(frame)
        }
    }
    return frames
}

func decodeAll(_ text: String, version: StompVersion = .v1_2,
               limits: StompLimits = StompLimits()) throws(StompProtocolError) -> [StompFrame] {
    try decodeAll([ByteBuffer(string: text)], version: version, limits: limits)
}

/// Cuts `bytes` at the given offsets.
func split(_ bytes: ByteBuffer, at cuts: [Int]) -> [ByteBuffer] {
    var chunks: [ByteBuffer] = []
    var start = 0
    for cut in cuts.sorted() + [bytes.readableBytes] where cut >= start {
        chunks.append(bytes.getSlice(at: bytes.readerIndex + start, length: cut - start)!)
        start = cut
    }
    return chunks
}

