/// The one EXIF tag the cleaned files keep: orientation (tag 0x0112 of the first IFD).
enum ExifOrientation {
    static let tag = 0x0112

    /// The orientation in a TIFF-structured EXIF block (`Exif\0\0` prefix optional), or 1 when
    /// the block has none or does not parse: metadata never makes an upload fail.
    static func read(_ bytes: [UInt8], from start: Int, to end: Int) -> Int {
        let reader = ByteReader(bytes: Array(bytes[start..<end]))
        let tiffStart = reader.has("Exif\0\0", at: 0) ? 6 : 0
        let value = try? orientation(in: reader, tiffStart: tiffStart)
        return value.flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
    }

    private static func orientation(in reader: ByteReader, tiffStart: Int) throws -> Int? {
        let bigEndian: Bool
        if reader.has("MM\0*", at: tiffStart) {
            bigEndian = true
        } else if reader.has("II*\0", at: tiffStart) {
            bigEndian = false
        } else {
            return nil
        }
        let u16 = { (offset: Int) throws -> Int in try bigEndian ? reader.uint16BE(offset) : reader.uint16LE(offset) }
        let u32 = { (offset: Int) throws -> Int in try bigEndian ? reader.uint32BE(offset) : reader.uint32LE(offset) }
        let ifd = tiffStart + (try u32(tiffStart + 4))
        let entries = try u16(ifd)
        for index in 0..<entries {
            let entry = ifd + 2 + 12 * index
            // SHORT, one value, held in the first two bytes of the value field.
            if try u16(entry) == tag, try u16(entry + 2) == 3, try u32(entry + 4) == 1 {
                return try u16(entry + 8)
            }
        }
        return nil
    }

    /// A big-endian TIFF block whose only entry is the orientation.
    static func minimalTIFF(_ orientation: Int) -> [UInt8] {
        [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, // header, first IFD at 8
         0, 1, // one entry
         0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation), 0, 0, // orientation, SHORT, 1 value
         0, 0, 0, 0] // no next IFD
    }
}
