/// What a parser learned of an uploaded image, and the same image without its metadata.
public struct InspectedImage: Sendable, Equatable {
    /// One stretch of the cleaned file: bytes kept from the upload, or bytes the cleaner wrote.
    public enum Piece: Sendable, Equatable {
        case original(Range<Int>)
        case inserted([UInt8])
    }

    public var format: ImageFormat
    /// The stored pixels' size, before any orientation is applied.
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// The EXIF orientation (1–8; 1 when none was given): how a viewer turns the pixels.
    public var orientation: Int
    /// Whether the pixels have transparency (PNG with alpha or `tRNS`, WebP with alpha).
    public var hasAlpha: Bool
    /// The cleaned file: the pieces in order. Only what a viewer needs to draw the image is
    /// kept (pixels, colour profile, transparency, animation); EXIF, XMP, IPTC, comments and
    /// anything after the image's end are dropped, and an orientation other than 1 is written
    /// back as a minimal EXIF block holding that one tag.
    public var pieces: [Piece]

    /// The pixel count, which decoding would allocate for.
    public var pixelCount: Int { pixelWidth * pixelHeight }

    /// The size a viewer shows: width and height swapped for the orientations that turn by 90°.
    public var displayWidth: Int { orientation >= 5 ? pixelHeight : pixelWidth }
    public var displayHeight: Int { orientation >= 5 ? pixelWidth : pixelHeight }

    /// The cleaned file assembled from `upload`, the bytes this was inspected from.
    public func cleaned(from upload: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(upload.count)
        for piece in pieces {
            switch piece {
            case .original(let range): output.append(contentsOf: upload[range])
            case .inserted(let bytes): output.append(contentsOf: bytes)
            }
        }
        return output
    }
}

/// Recognises and checks an upload by its content, and says how to clean it.
public enum ImageInspector {
    /// Parses the headers of `bytes` (never the compressed pixels): the format, the size, the
    /// orientation and the cleaned layout.
    /// - Throws: ``ImageError``: unrecognized, truncated or malformed.
    public static func inspect(_ bytes: [UInt8]) throws -> InspectedImage {
        switch ImageFormat(signature: bytes) {
        case .jpeg: try JPEGParser.inspect(bytes)
        case .png: try PNGParser.inspect(bytes)
        case .webp: try WebPParser.inspect(bytes)
        case nil: throw ImageError.unrecognized
        }
    }
}
