/// PNG: walks the chunks (checking each CRC), reads the header, keeps what a decoder needs.
enum PNGParser {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Ancillary chunks kept because they change how the pixels look or move (colour,
    /// transparency, pixel density, APNG animation); every other ancillary chunk (text, XMP in
    /// `iTXt`, `eXIf`, `tIME`, private chunks) is dropped.
    private static let keptAncillary: Set<String> = [
        "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "sBIT", "bKGD", "pHYs", "cICP", "acTL", "fcTL", "fdAT",
    ]

    static func inspect(_ bytes: [UInt8]) throws -> InspectedImage {
        let reader = ByteReader(bytes: bytes)
        guard bytes.starts(with: signature) else { throw ImageError.unrecognized }
        var kept: [InspectedImage.Piece] = [.original(0..<8)]
        var header: (width: Int, height: Int, alpha: Bool)?
        var transparency = false
        var sawData = false
        var orientation = 1
        var position = 8
        while true {
            let length = try reader.uint32BE(position)
            guard length <= Int(Int32.max) else { throw ImageError.malformed("chunk length \(length)") }
            try reader.need(position, 12 + length)
            let typeBytes = bytes[position + 4..<position + 8]
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw ImageError.malformed("chunk type at \(position)")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            let data = position + 8
            let end = data + length + 4
            guard CRC32.checksum(bytes[position + 4..<data + length]) == UInt32(try reader.uint32BE(data + length)) else {
                throw ImageError.malformed("CRC of \(type)")
            }
            let chunk = InspectedImage.Piece.original(position..<end)
            guard header != nil || type == "IHDR" else { throw ImageError.malformed("\(type) before IHDR") }
            switch type {
            case "IHDR":
                guard header == nil, length == 13 else { throw ImageError.malformed("IHDR") }
                header = try imageHeader(reader, data)
                kept.append(chunk)
            case "IDAT":
                sawData = true
                kept.append(chunk)
            case "IEND":
                guard let header, sawData else { throw ImageError.malformed("IEND without image data") }
                kept.append(chunk) // whatever follows IEND is dropped
                // Right after IHDR, where eXIf belongs.
                if orientation != 1 { kept.insert(.inserted(exifChunk(orientation)), at: 2) }
                return InspectedImage(
                    format: .png, pixelWidth: header.width, pixelHeight: header.height, orientation: orientation,
                    hasAlpha: header.alpha || transparency, pieces: kept)
            case "PLTE":
                kept.append(chunk)
            case "eXIf":
                orientation = ExifOrientation.read(bytes, from: data, to: data + length)
            default:
                guard typeBytes.first! & 0x20 != 0 else { throw ImageError.malformed("unknown critical chunk \(type)") }
                if keptAncillary.contains(type) {
                    if type == "tRNS" { transparency = true }
                    kept.append(chunk)
                }
            }
            position = end
        }
    }

    /// Width, height and whether the colour type carries alpha, from IHDR's 13 bytes.
    private static func imageHeader(_ reader: ByteReader, _ data: Int) throws -> (width: Int, height: Int, alpha: Bool) {
        let width = try reader.uint32BE(data)
        let height = try reader.uint32BE(data + 4)
        let depth = Int(reader.bytes[data + 8])
        let colourType = Int(reader.bytes[data + 9])
        let allowedDepths: [Int: Set<Int>] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard (1...Int(Int32.max)).contains(width), (1...Int(Int32.max)).contains(height),
              allowedDepths[colourType]?.contains(depth) == true,
              reader.bytes[data + 10] == 0, reader.bytes[data + 11] == 0, reader.bytes[data + 12] <= 1
        else { throw ImageError.malformed("IHDR values") }
        return (width, height, colourType == 4 || colourType == 6)
    }

    /// An `eXIf` chunk holding only the orientation.
    private static func exifChunk(_ orientation: Int) -> [UInt8] {
        let tiff = ExifOrientation.minimalTIFF(orientation)
        let typeAndData = Array("eXIf".utf8) + tiff
        let crc = CRC32.checksum(typeAndData[...])
        return bigEndian(UInt32(tiff.count)) + typeAndData + bigEndian(crc)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

/// The CRC-32 of PNG chunks (ISO 3309, the same as zlib's).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
