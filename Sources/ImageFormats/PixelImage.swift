/// Decoded 8-bit pixels, RGB or RGBA, row after row.
struct PixelImage {
    var width: Int
    var height: Int
    var channels: Int
    var pixels: [UInt8]

    /// The image turned the way EXIF `orientation` (1–8) tells a viewer to show it.
    func oriented(_ orientation: Int) -> PixelImage {
        guard (2...8).contains(orientation) else { return self }
        let turned = orientation >= 5
        let outWidth = turned ? height : width
        let outHeight = turned ? width : height
        var output = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                // Where the shown pixel (x, y) is in the stored image.
                let (sourceX, sourceY): (Int, Int) = switch orientation {
                case 2: (width - 1 - x, y)
                case 3: (width - 1 - x, height - 1 - y)
                case 4: (x, height - 1 - y)
                case 5: (y, x)
                case 6: (y, height - 1 - x)
                case 7: (width - 1 - y, height - 1 - x)
                default: (width - 1 - y, x)
                }
                let from = (sourceY * width + sourceX) * channels
                let to = (y * outWidth + x) * channels
                for channel in 0..<channels { output[to + channel] = pixels[from + channel] }
            }
        }
        return PixelImage(width: outWidth, height: outHeight, channels: channels, pixels: output)
    }
}

/// Shrinks an image row by row to a fixed size, each output pixel the average of the input
/// pixels that fall on it (a box filter), so that the whole input never has to be held.
final class BoxDownscaler {
    let inputWidth: Int
    let inputHeight: Int
    private(set) var output: PixelImage
    private var sums: [UInt32]
    private var rowsInBand: UInt32 = 0
    private var inputRow = 0
    private var outputRow = 0
    /// The output column of each input column, and how many input columns each output one has.
    private let columnOf: [Int]
    private let columnWidths: [UInt32]

    init(inputWidth: Int, inputHeight: Int, channels: Int, outputWidth: Int, outputHeight: Int) {
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        output = PixelImage(
            width: outputWidth, height: outputHeight, channels: channels,
            pixels: [UInt8](repeating: 0, count: outputWidth * outputHeight * channels))
        sums = [UInt32](repeating: 0, count: outputWidth * channels)
        columnOf = (0..<inputWidth).map { $0 * outputWidth / inputWidth }
        var widths = [UInt32](repeating: 0, count: outputWidth)
        for column in columnOf { widths[column] += 1 }
        columnWidths = widths
    }

    /// Adds the next input row (`inputWidth` pixels of the output's channel count).
    func add(_ row: UnsafePointer<UInt8>) {
        let band = inputRow * output.height / inputHeight
        if band != outputRow {
            flush()
            outputRow = band
        }
        let channels = output.channels
        sums.withUnsafeMutableBufferPointer { sums in
            columnOf.withUnsafeBufferPointer { columnOf in
                for x in 0..<inputWidth {
                    let to = columnOf[x] * channels
                    let from = x * channels
                    for channel in 0..<channels { sums[to + channel] &+= UInt32(row[from + channel]) }
                }
            }
        }
        rowsInBand += 1
        inputRow += 1
        if inputRow == inputHeight { flush() }
    }

    private func flush() {
        guard rowsInBand > 0 else { return }
        let channels = output.channels
        let start = outputRow * output.width * channels
        for x in 0..<output.width {
            let count = columnWidths[x] * rowsInBand
            for channel in 0..<channels {
                let index = x * channels + channel
                output.pixels[start + index] = UInt8((sums[index] + count / 2) / max(count, 1))
                sums[index] = 0
            }
        }
        rowsInBand = 0
    }
}
