import Foundation

/// How much one upload and one user may bring, and how long an unused upload is kept.
public struct MediaLimits: Sendable {
    /// Largest upload accepted, in bytes (10 MiB).
    public var maxBytes = 10 << 20
    /// Most pixels an upload may have (40 megapixels, above any phone camera's default), checked
    /// in the headers before anything is decoded: a small file must not expand into gigabytes.
    public var maxPixels = 40_000_000
    /// Uploads one user may make in any hour.
    public var uploadsPerHour = 30
    /// Bytes one user's uploads may take in all (200 MiB, counting the files as stored).
    public var bytesPerUser = 200 << 20
    /// How long an upload nothing refers to (no profile, meeting or chat message) is kept
    /// before the sweep removes it: time for a client to upload, then save what uses it.
    public var gracePeriod: TimeInterval = 24 * 3600
    /// The thumbnail sizes made of JPEG and PNG uploads: the longer side, in pixels.
    public var thumbnailSizes = [256, 1280]

    /// The default limits; `meetupd`'s media options change single fields.
    public init() {}
}
