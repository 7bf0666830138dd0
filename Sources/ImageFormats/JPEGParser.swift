/// JPEG (JFIF or EXIF): walks the markers, reads the frame size, keeps the segments a decoder
/// needs and drops the rest.
enum JPEGParser {
    /// Segments kept as they are: tables, frame and scan headers, restart intervals.
    private static let tableMarkers: Set<UInt8> = [0xC4, 0xCC, 0xDB, 0xDD]
    /// Start-of-frame markers (every coding process except the hierarchical DHP/EXP).
    private static let frameMarkers: Set<UInt8> = [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF]

    static func inspect(_ bytes: [UInt8]) throws -> InspectedImage {
        let reader = ByteReader(bytes: bytes)
        guard bytes.starts(with: [0xFF, 0xD8]) else { throw ImageError.unrecognized }
        var kept: [InspectedImage.Piece] = []
        var size: (width: Int, height: Int)?
        var orientation = 1
        var sawScan = false
        var position = 2
        while true {
            try reader.need(position, 1)
            guard bytes[position] == 0xFF else { throw ImageError.malformed("no marker at \(position)") }
            while position < bytes.count, bytes[position] == 0xFF { position += 1 } // fill bytes
            try reader.need(position, 1)
            let marker = bytes[position]
            position += 1
            if marker == 0xD9 {
                guard sawScan, let size else { throw ImageError.malformed("image ends before its scan") }
                kept.append(.inserted([0xFF, 0xD9])) // whatever follows the end is dropped
                let header: [InspectedImage.Piece] = orientation == 1 ? [] : [.inserted(exifSegment(orientation))]
                return InspectedImage(
                    format: .jpeg, pixelWidth: size.width, pixelHeight: size.height, orientation: orientation,
                    hasAlpha: false, pieces: [.inserted([0xFF, 0xD8])] + header + kept)
            }
            guard marker != 0x00, marker != 0x01, !(0xD0...0xD8).contains(marker) else {
                throw ImageError.malformed("marker \(marker) outside a scan")
            }
            let length = try reader.uint16BE(position)
            guard length >= 2 else { throw ImageError.malformed("segment length \(length)") }
            let end = position + length
            try reader.need(position, length)
            let payload = position + 2
            let segment = InspectedImage.Piece.original(position - 2..<end)
            switch marker {
            case _ where frameMarkers.contains(marker):
                guard size == nil else { throw ImageError.malformed("second frame header") }
                size = try frameSize(reader, payload, end)
                kept.append(segment)
            case _ where tableMarkers.contains(marker):
                kept.append(segment)
            case 0xDA:
                guard size != nil else { throw ImageError.malformed("scan before the frame header") }
                kept.append(segment)
                let scanEnd = try endOfEntropyCodedData(bytes, from: end)
                kept.append(.original(end..<scanEnd))
                sawScan = true
                position = scanEnd
                continue
            case 0xE0 where reader.has("JFIF\0", at: payload),
                 0xE2 where reader.has("ICC_PROFILE\0", at: payload),
                 0xEE where reader.has("Adobe", at: payload):
                // JFIF density, the colour profile, and Adobe's colour transform change how the
                // pixels look; they say nothing about the person or the place.
                kept.append(segment)
            case 0xE1 where reader.has("Exif\0\0", at: payload):
                orientation = ExifOrientation.read(bytes, from: payload, to: end)
            default:
                break // EXIF, XMP, IPTC, MPF, maker notes, comments: dropped
            }
            position = end
        }
    }

    /// The frame's width and height from a start-of-frame payload, checked for sense.
    private static func frameSize(_ reader: ByteReader, _ payload: Int, _ end: Int) throws -> (width: Int, height: Int) {
        guard end - payload >= 6 else { throw ImageError.malformed("short frame header") }
        let height = try reader.uint16BE(payload + 1)
        let width = try reader.uint16BE(payload + 3)
        let components = Int(reader.bytes[payload + 5])
        guard width > 0, height > 0 else { throw ImageError.malformed("frame of \(width)x\(height)") }
        guard (1...4).contains(components), end - payload >= 6 + 3 * components else {
            throw ImageError.malformed("frame with \(components) components")
        }
        return (width, height)
    }

    /// Where the entropy-coded data after a scan header ends: the next marker that is neither a
    /// stuffed zero nor a restart marker.
    private static func endOfEntropyCodedData(_ bytes: [UInt8], from start: Int) throws -> Int {
        var index = start
        while index < bytes.count - 1 {
            if bytes[index] != 0xFF {
                index += 1
                continue
            }
            let next = bytes[index + 1]
            if next == 0x00 || (0xD0...0xD7).contains(next) {
                index += 2
            } else if next == 0xFF {
                index += 1
            } else {
                return index
            }
        }
        throw ImageError.truncated
    }

    /// An APP1 segment holding only the orientation.
    private static func exifSegment(_ orientation: Int) -> [UInt8] {
        let payload = Array("Exif\0\0".utf8) + ExifOrientation.minimalTIFF(orientation)
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }
}
