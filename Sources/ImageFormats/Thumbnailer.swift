import ImageCodecs

/// A smaller copy of an image, turned the way its orientation says.
public struct Thumbnail: Sendable, Equatable {
    /// The longest side it was made to fit (256, 1280).
    public var maxSide: Int
    public var width: Int
    public var height: Int
    public var format: ImageFormat
    public var data: [UInt8]
}

/// Makes thumbnails of JPEG and PNG uploads with the system libjpeg-turbo and libpng: one
/// decode (JPEG scaled down by the codec already), every size shrunk from it row by row.
public enum Thumbnailer {
    /// JPEG quality of thumbnails: small files with no visible blocking at phone sizes.
    static let jpegQuality: Int32 = 82

    /// Thumbnails fitting each of `maxSides` (never enlarged), or none for a format it cannot
    /// decode (WebP) or a colour space it does not convert (CMYK JPEG).
    /// - Throws: ``ImageError/undecodable(_:)`` when the codec finds the pixels corrupt or cut off.
    public static func thumbnails(of bytes: [UInt8], _ image: InspectedImage, maxSides: [Int]) throws -> [Thumbnail] {
        guard image.format != .webp, let largest = maxSides.max() else { return [] }
        let sink = RowSink(sizes: maxSides, storedWidth: image.pixelWidth, storedHeight: image.pixelHeight)
        var message = [CChar](repeating: 0, count: Int(IC_MESSAGE_LENGTH))
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let begin: ic_begin_fn = { context, width, height, channels in
            Unmanaged<RowSink>.fromOpaque(context!).takeUnretainedValue().begin(Int(width), Int(height), Int(channels)) ? 1 : 0
        }
        let row: ic_row_fn = { context, pixels in
            Unmanaged<RowSink>.fromOpaque(context!).takeUnretainedValue().add(pixels!)
        }
        let status = bytes.withUnsafeBufferPointer { input in
            switch image.format {
            case .jpeg: ic_jpeg_decode(input.baseAddress, input.count, UInt32(largest), context, begin, row, &message)
            default: ic_png_decode(input.baseAddress, input.count, context, begin, row, &message)
            }
        }
        switch status {
        case 0: break
        case 2: return []
        default: throw ImageError.undecodable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return try sink.scalers.map { maxSide, scaler in
            let pixels = scaler.output.oriented(image.orientation)
            let format: ImageFormat = pixels.channels == 4 ? .png : .jpeg
            return Thumbnail(maxSide: maxSide, width: pixels.width, height: pixels.height, format: format, data: try encode(pixels, as: format))
        }
    }

    /// The size fitting `maxSide` on the longer side, keeping the aspect ratio, never enlarged.
    static func fitted(width: Int, height: Int, maxSide: Int) -> (width: Int, height: Int) {
        let longer = max(width, height)
        guard longer > maxSide else { return (width, height) }
        return (max(1, (width * maxSide + longer / 2) / longer), max(1, (height * maxSide + longer / 2) / longer))
    }

    private static func encode(_ image: PixelImage, as format: ImageFormat) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: Int(IC_MESSAGE_LENGTH))
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            format == .jpeg
                ? ic_jpeg_encode(pixels.baseAddress, UInt32(image.width), UInt32(image.height), jpegQuality, &output, &size, &message)
                : ic_png_encode(pixels.baseAddress, UInt32(image.width), UInt32(image.height), UInt32(image.channels), &output, &size, &message)
        }
        guard status == 0, let output else {
            throw ImageError.undecodable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { ic_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}

/// Receives decoded rows from the C codecs and feeds one downscaler per thumbnail size.
private final class RowSink {
    let sizes: [Int]
    let storedWidth: Int
    let storedHeight: Int
    private(set) var scalers: [(Int, BoxDownscaler)] = []

    init(sizes: [Int], storedWidth: Int, storedHeight: Int) {
        self.sizes = sizes
        self.storedWidth = storedWidth
        self.storedHeight = storedHeight
    }

    /// Sizes are fitted to the stored image, then applied to what the codec delivers (which
    /// JPEG's DCT scaling may already have made smaller).
    func begin(_ width: Int, _ height: Int, _ channels: Int) -> Bool {
        guard width > 0, height > 0 else { return false }
        scalers = sizes.map { maxSide in
            let target = Thumbnailer.fitted(width: storedWidth, height: storedHeight, maxSide: maxSide)
            let scaler = BoxDownscaler(
                inputWidth: width, inputHeight: height, channels: channels,
                outputWidth: min(target.width, width), outputHeight: min(target.height, height))
            return (maxSide, scaler)
        }
        return true
    }

    func add(_ row: UnsafePointer<UInt8>) {
        for (_, scaler) in scalers { scaler.add(row) }
    }
}
