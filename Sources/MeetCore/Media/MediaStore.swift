import Crypto
import Foundation
import ImageFormats

/// The media files under `<data>/media/`: `<hash prefix>/<hash>.<ext>` for a cleaned upload,
/// `<hash>-<maxSide>.<ext>` beside it for each thumbnail, and `incoming/` for bodies still
/// being received.
struct MediaStore: Sendable {
    let root: URL

    var incomingDirectory: URL { root.appendingPathComponent("incoming") }

    /// Creates the folders and removes what an interrupted upload left in `incoming/`.
    func prepare() throws {
        try? FileManager.default.removeItem(at: incomingDirectory)
        try FileManager.default.createDirectory(at: incomingDirectory, withIntermediateDirectories: true)
    }

    /// The file of a cleaned upload, or of one of its thumbnails.
    func url(hash: String, contentType: String, maxSide: Int? = nil) -> URL {
        let suffix = maxSide.map { "-\($0)" } ?? ""
        let fileExtension = ImageFormat(contentType: contentType)?.fileExtension ?? "bin"
        return root.appendingPathComponent(String(hash.prefix(2))).appendingPathComponent("\(hash)\(suffix).\(fileExtension)")
    }

    /// Writes the cleaned upload (assembled from `pieces` of `upload`) and its thumbnails, unless
    /// a file of the same content is there already; returns the content's hash and size.
    func write(_ image: InspectedImage, from upload: [UInt8], thumbnails: [Thumbnail]) throws -> (hash: String, byteCount: Int) {
        var hasher = SHA256()
        var byteCount = 0
        for piece in image.pieces {
            switch piece {
            case .original(let range): upload.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[range])) }
            case .inserted(let bytes): hasher.update(data: bytes)
            }
            byteCount += piece.count
        }
        let hash = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let target = url(hash: hash, contentType: image.format.contentType)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: target.path) {
            for thumbnail in thumbnails {
                try place(at: url(hash: hash, contentType: thumbnail.format.contentType, maxSide: thumbnail.maxSide)) { handle in
                    try handle.write(contentsOf: thumbnail.data)
                }
            }
            // The main file last: its presence says the set is complete. Pieces go straight from
            // the upload to the file, so that the image is never held twice.
            try place(at: target) { handle in
                for piece in image.pieces {
                    switch piece {
                    case .original(let range):
                        try upload.withUnsafeBytes { bytes in
                            let start = UnsafeMutableRawPointer(mutating: bytes.baseAddress! + range.lowerBound)
                            try handle.write(contentsOf: Data(bytesNoCopy: start, count: range.count, deallocator: .none))
                        }
                    case .inserted(let bytes):
                        try handle.write(contentsOf: bytes)
                    }
                }
            }
        }
        return (hash, byteCount)
    }

    /// Removes a cleaned upload and its thumbnails.
    func remove(hash: String) {
        let folder = root.appendingPathComponent(String(hash.prefix(2)))
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix(hash) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// Writes to a temporary name, then renames, so that a reader never sees half a file.
    private func place(at target: URL, _ write: (FileHandle) throws -> Void) throws {
        let temporary = incomingDirectory.appendingPathComponent(UUID().uuidString)
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try write(handle)
            guard rename(temporary.path, target.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}

extension InspectedImage.Piece {
    /// How many bytes the piece adds to the cleaned file.
    var count: Int {
        switch self {
        case .original(let range): range.count
        case .inserted(let bytes): bytes.count
        }
    }
}
