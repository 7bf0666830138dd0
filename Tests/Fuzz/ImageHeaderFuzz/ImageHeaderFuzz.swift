import FuzzDriver
import ImageFormats

/// libFuzzer entry point: feeds arbitrary bytes to the image header parsers (JPEG markers, PNG
/// chunks, WebP RIFF chunks, the EXIF orientation reader) and checks what they accept.
///
/// Refusals are the expected outcome for most inputs; crashes, hangs and sanitizer reports are
/// what the fuzzer looks for. An accepted input must clean to a file that parses again to the
/// same size and orientation, and whose cleaning changes nothing more (cleaning is idempotent).
/// The codecs are not driven here: they are C libraries fuzzed by their own projects.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageHeaders(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: start, count: count))
    guard let image = try? ImageInspector.inspect(input) else { return 0 }
    precondition(image.pixelWidth > 0 && image.pixelHeight > 0 && (1...8).contains(image.orientation))
    let cleaned = image.cleaned(from: input)
    guard let again = try? ImageInspector.inspect(cleaned) else {
        preconditionFailure("a cleaned \(image.format) no longer parses")
    }
    precondition(again.format == image.format && again.pixelWidth == image.pixelWidth && again.pixelHeight == image.pixelHeight)
    precondition(again.orientation == image.orientation)
    precondition(again.cleaned(from: cleaned) == cleaned, "cleaning a cleaned file changed it")
    return 0
}

@main
enum ImageHeaderFuzz {
    static func main() {
        runFuzzTarget(fuzzImageHeaders)
    }
}
