import Foundation
import GRDB

/// One upload, as stored.
public struct MediaItem: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    /// A smaller copy made of a JPEG or PNG upload.
    public struct Thumbnail: Codable, Sendable, Equatable {
        /// The longer side it was made to fit; also its name in URLs (`/media/{id}/256`).
        public var maxSide: Int
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// MIME type of the thumbnail file, served as its `Content-Type`.
        public var contentType: String
        /// Size of the thumbnail file in bytes.
        public var byteCount: Int
    }

    /// The `media` table.
    public static let databaseTableName = "media"
    // Times are seconds since 1970, so that the sweep and the hourly limit compare numbers.
    /// Stores dates as seconds since 1970 (see above).
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
    /// Reads dates stored as seconds since 1970.
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }

    /// Opaque id, used in URLs (`/media/{id}`) and by meetings and profiles that show it.
    public var id: String
    /// The user who uploaded it; counted against that user's hourly upload limit.
    public var uploaderId: String
    /// The SHA-256 (hex) of the stored, cleaned file: its name on disk and its ETag.
    public var contentHash: String
    /// MIME type of the stored file (`image/jpeg`, `image/png`, ...), served as its `Content-Type`.
    public var contentType: String
    /// Size of the stored file in bytes.
    public var byteCount: Int
    /// The size as shown, with the orientation applied.
    public var width: Int
    /// Height in pixels, with the orientation applied.
    public var height: Int
    /// The smaller copies made of it; empty for types that get none.
    public var thumbnails: [Thumbnail]
    /// When it was uploaded; old unused uploads are swept by this time.
    public var createdAt: Date

    /// The thumbnail made for `maxSide`, if any.
    public func thumbnail(_ maxSide: Int) -> Thumbnail? {
        thumbnails.first { $0.maxSide == maxSide }
    }
}

/// A stored file as it is served: an upload or one of its thumbnails.
public struct MediaFile: Sendable, Equatable {
    /// Path of the file on the server's disk, under the media directory.
    public var path: String
    /// MIME type, sent as `Content-Type`.
    public var contentType: String
    /// Size in bytes, sent as `Content-Length`.
    public var byteCount: Int
    /// A strong entity tag: the content hash (with the thumbnail size), quoted.
    public var etag: String
}
