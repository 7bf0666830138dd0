/// WebP (RIFF): reads the size from the VP8, VP8L or VP8X chunk, keeps the image chunks and
/// drops `EXIF` and `XMP `.
enum WebPParser {
    /// Chunks kept from an extended file: pixels, alpha, animation and the colour profile.
    private static let keptChunks: Set<String> = ["VP8 ", "VP8L", "ALPH", "ANIM", "ANMF", "ICCP"]
    private static let exifFlag: UInt8 = 0x08
    private static let xmpFlag: UInt8 = 0x04
    private static let alphaFlag: UInt8 = 0x10

    static func inspect(_ bytes: [UInt8]) throws -> InspectedImage {
        let reader = ByteReader(bytes: bytes)
        guard reader.has("RIFF", at: 0), reader.has("WEBP", at: 8) else { throw ImageError.unrecognized }
        let riffSize = try reader.uint32LE(4)
        guard riffSize >= 4, riffSize % 2 == 0 else { throw ImageError.malformed("RIFF size \(riffSize)") }
        let end = 8 + riffSize
        try reader.need(0, end) // anything after the RIFF container is dropped
        var kept: [InspectedImage.Piece] = []
        var extended: (flags: UInt8, width: Int, height: Int)?
        var size: (width: Int, height: Int, alpha: Bool)?
        var orientation = 1
        var position = 12
        while position < end {
            guard end - position >= 8 else { throw ImageError.malformed("chunk header at \(position)") }
            let fourCC = String(decoding: bytes[position..<position + 4], as: UTF8.self)
            let length = try reader.uint32LE(position + 4)
            let data = position + 8
            guard length <= end - data - (length & 1) else { throw ImageError.truncated }
            let next = data + length + (length & 1)
            switch fourCC {
            case "VP8X":
                guard position == 12, length >= 10 else { throw ImageError.malformed("VP8X") }
                extended = (bytes[data], try reader.uint24LE(data + 4) + 1, try reader.uint24LE(data + 7) + 1)
            case "VP8 ", "VP8L":
                guard size == nil else { throw ImageError.malformed("second image") }
                size = fourCC == "VP8L" ? try losslessSize(reader, data, length) : try lossySize(reader, data, length)
                kept.append(.original(position..<next))
            case "EXIF":
                orientation = ExifOrientation.read(bytes, from: data, to: data + length)
            case "ANMF":
                guard extended != nil else { throw ImageError.malformed("ANMF outside an extended file") }
                size = size ?? (0, 0, false) // the canvas size stands for the frames
                kept.append(.original(position..<next))
            default:
                if extended != nil, keptChunks.contains(fourCC) { kept.append(.original(position..<next)) }
            }
            position = next
        }
        guard let size else { throw ImageError.malformed("no image data") }
        guard let extended else {
            return InspectedImage(
                format: .webp, pixelWidth: size.width, pixelHeight: size.height, orientation: 1, hasAlpha: size.alpha,
                pieces: [.inserted(riffHeader(payloadLength: riffLength(kept)))] + kept)
        }
        // The extended header, rewritten to say what the cleaned file still holds.
        var flags = extended.flags & ~(exifFlag | xmpFlag)
        if orientation != 1 {
            flags |= exifFlag
            let tiff = ExifOrientation.minimalTIFF(orientation)
            kept.append(.inserted(Array("EXIF".utf8) + littleEndian(tiff.count, 4) + tiff))
        }
        let vp8x = Array("VP8X".utf8) + littleEndian(10, 4) + [flags, 0, 0, 0]
            + littleEndian(extended.width - 1, 3) + littleEndian(extended.height - 1, 3)
        let body = [InspectedImage.Piece.inserted(vp8x)] + kept
        return InspectedImage(
            format: .webp, pixelWidth: extended.width, pixelHeight: extended.height, orientation: orientation,
            hasAlpha: extended.flags & alphaFlag != 0, pieces: [.inserted(riffHeader(payloadLength: riffLength(body)))] + body)
    }

    /// A lossy key frame's size: a 3-byte frame tag, the start code, then two 14-bit sizes.
    private static func lossySize(_ reader: ByteReader, _ data: Int, _ length: Int) throws -> (width: Int, height: Int, alpha: Bool) {
        guard length >= 10, reader.bytes[data] & 1 == 0, Array(reader.bytes[data + 3..<data + 6]) == [0x9D, 0x01, 0x2A] else {
            throw ImageError.malformed("VP8 frame header")
        }
        let width = try reader.uint16LE(data + 6) & 0x3FFF
        let height = try reader.uint16LE(data + 8) & 0x3FFF
        guard width > 0, height > 0 else { throw ImageError.malformed("VP8 of \(width)x\(height)") }
        return (width, height, false)
    }

    /// A lossless image's size: the signature byte, then 14-bit sizes minus one, an alpha hint
    /// and a version that must be 0.
    private static func losslessSize(_ reader: ByteReader, _ data: Int, _ length: Int) throws -> (width: Int, height: Int, alpha: Bool) {
        guard length >= 5, reader.bytes[data] == 0x2F else { throw ImageError.malformed("VP8L signature") }
        let bits = try reader.uint32LE(data + 1)
        guard bits >> 29 == 0 else { throw ImageError.malformed("VP8L version") }
        return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1, bits >> 28 & 1 == 1)
    }

    private static func riffLength(_ pieces: [InspectedImage.Piece]) -> Int {
        4 + pieces.reduce(0) { total, piece in
            switch piece {
            case .original(let range): total + range.count
            case .inserted(let bytes): total + bytes.count
            }
        }
    }

    private static func riffHeader(payloadLength: Int) -> [UInt8] {
        Array("RIFF".utf8) + littleEndian(payloadLength, 4) + Array("WEBP".utf8)
    }

    private static func littleEndian(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
