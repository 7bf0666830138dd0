import Foundation
import ImageFormats

/// An upload being received: its bytes go to a file in `<data>/media/incoming/` as they
/// arrive, so that a body is never collected in memory; the file goes away with this object.
public final class IncomingMedia {
    /// The format the client declared (its `Content-Type`).
    public let declared: ImageFormat
    let url: URL
    private let handle: FileHandle
    private let maxBytes: Int
    private var prefix: [UInt8] = []
    /// Bytes received so far; past the size limit the upload is refused.
    public private(set) var byteCount = 0

    init(directory: URL, declared: ImageFormat, maxBytes: Int) throws {
        self.declared = declared
        self.maxBytes = maxBytes
        url = directory.appendingPathComponent(UUID().uuidString)
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        handle = try FileHandle(forWritingTo: url)
    }

    deinit {
        discard()
    }

    /// Closes and deletes the file (again harmless).
    func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(at: url)
    }

    /// Appends the next part of the body.
    /// - Throws: `media.tooLarge` past the size limit; `media.unsupportedType` or
    ///   `media.typeMismatch` as soon as the first bytes show what the content is.
    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        byteCount += bytes.count
        guard byteCount <= maxBytes else { throw MediaService.tooLarge(maxBytes) }
        if prefix.count < ImageFormat.signatureLength {
            prefix += bytes.prefix(ImageFormat.signatureLength - prefix.count)
            if prefix.count == ImageFormat.signatureLength {
                guard let format = ImageFormat(signature: prefix) else { throw MediaService.unsupportedType }
                guard format == declared else { throw MediaService.typeMismatch(format) }
            }
        }
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        try handle.write(contentsOf: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: start), count: bytes.count, deallocator: .none))
    }
}
