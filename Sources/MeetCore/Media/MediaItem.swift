import Foundation
import GRDB

/// One upload, as stored.
public struct MediaItem: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    /// A smaller copy made of a JPEG or PNG upload.
    public struct Thumbnail: Codable, Sendable, Equatable {
        /// The longer side it was made to fit; also its name in URLs (`/media/{id}/256`).
        public var maxSide: Int
        public var width: Int
        public var height: Int
        public var contentType: String
        public var byteCount: Int
    }

    public static let databaseTableName = "media"
    // Times are seconds since 1970, so that the sweep and the hourly limit compare numbers.
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }

    public var id: String
    public var uploaderId: String
    /// The SHA-256 (hex) of the stored, cleaned file: its name on disk and its ETag.
    public var contentHash: String
    public var contentType: String
    public var byteCount: Int
    /// The size as shown, with the orientation applied.
    public var width: Int
    public var height: Int
    public var thumbnails: [Thumbnail]
    public var createdAt: Date

    /// The thumbnail made for `maxSide`, if any.
    public func thumbnail(_ maxSide: Int) -> Thumbnail? {
        thumbnails.first { $0.maxSide == maxSide }
    }
}

/// A stored file as it is served: an upload or one of its thumbnails.
public struct MediaFile: Sendable, Equatable {
    public var path: String
    public var contentType: String
    public var byteCount: Int
    /// A strong entity tag: the content hash (with the thumbnail size), quoted.
    public var etag: String
}
