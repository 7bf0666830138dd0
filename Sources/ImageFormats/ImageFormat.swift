import Foundation

/// The image formats the app takes, recognised by their first bytes, never by a file name or
/// a declared type.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp

    /// The media type the format is served with (and declared with on upload).
    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        }
    }

    /// The extension of stored files, so that an operator can open them.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        }
    }

    /// The format a declared media type names (parameters and case ignored), if one we take.
    public init?(contentType: String) {
        let bare = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard let format = Self.allCases.first(where: { $0.contentType == bare }) else { return nil }
        self = format
    }

    /// How many leading bytes ``init(signature:)`` needs to decide.
    public static let signatureLength = 12

    /// The format whose signature `prefix` starts with, if any: JPEG's SOI marker followed by
    /// a marker, PNG's eight-byte signature, or a RIFF container of kind `WEBP`.
    public init?(signature prefix: some Collection<UInt8>) {
        let bytes = Array(prefix.prefix(Self.signatureLength))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if bytes.starts(with: PNGParser.signature) {
            self = .png
        } else if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            self = .webp
        } else {
            return nil
        }
    }
}
