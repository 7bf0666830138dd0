import Foundation
import GRDB
import ImageFormats
import Synchronization

/// Uploads, their files and their limits. Images are checked, cleaned, thumbnailed and stored
/// one at a time on a serial queue: decoding is the costly part, and one at a time bounds the
/// memory it takes and keeps file placement and the sweep from racing each other.
public final class MediaService: Sendable {
    let database: AppDatabase
    let files: MediaStore
    /// The configured limits every upload is checked against.
    public let limits: MediaLimits
    let now: @Sendable () -> Date
    private let queue = DispatchQueue(label: "meetupd.media")
    /// When the sweep last ran, by `now`; it runs at most every ``sweepInterval``.
    private let lastSweep = Mutex<Date?>(nil)
    static let sweepInterval: TimeInterval = 600

    /// Files live in `directory` (`<data>/media`), which is created if needed.
    public init(database: AppDatabase, directory: URL, limits: MediaLimits = .init(), now: @escaping @Sendable () -> Date = Date.init) throws {
        self.database = database
        files = MediaStore(root: directory)
        self.limits = limits
        self.now = now
        try files.prepare()
    }

    /// Refuses, before a body is read, an upload that cannot be taken: a declared type that is
    /// not an image we take, a declared length over the limit, a user over a limit.
    /// - Returns: where to put the body as it arrives.
    public func receive(declaring contentType: String?, length: Int?, by userId: String) async throws -> IncomingMedia {
        guard let declared = contentType.flatMap(ImageFormat.init(contentType:)) else { throw Self.unsupportedType }
        if let length, length > limits.maxBytes { throw Self.tooLarge(limits.maxBytes) }
        try await database.writer.read { [self] db in try checkAllowance(of: userId, adding: length ?? 0, in: db) }
        return try IncomingMedia(directory: files.incomingDirectory, declared: declared, maxBytes: limits.maxBytes)
    }

    /// Checks, cleans, thumbnails and stores a received upload.
    /// - Throws: `media.unsupportedType`, `media.typeMismatch` (415), `media.malformed`,
    ///   `media.tooManyPixels` (422), `media.tooManyUploads`, `media.quotaExceeded` (429).
    public func store(_ incoming: IncomingMedia, by userId: String) async throws -> MediaItem {
        // No fsync before the queue reads it back: this process's writes are in the page cache,
        // the file is gone once processed, and the caller's thread is an event loop.
        let (url, declared) = (incoming.url, incoming.declared)
        let item = try await onQueue { [self] in
            let item = try process(try Self.read(url), declared: declared, by: userId)
            try sweepIfDue()
            return item
        }
        incoming.discard() // also keeps the file alive until here
        return item
    }

    /// The file to serve for the upload `id` (or its thumbnail for `maxSide`) if `viewer` may
    /// read it; `media.notFound` otherwise.
    public func file(_ id: String, maxSide: Int?, for viewer: String) async throws -> MediaFile {
        let item = try await database.writer.read { db in try MediaAccess.readable(id, by: viewer, in: db) }
        guard let item else { throw Self.notFound }
        guard let maxSide else {
            return MediaFile(
                path: files.url(hash: item.contentHash, contentType: item.contentType).path, contentType: item.contentType,
                byteCount: item.byteCount, etag: "\"\(item.contentHash)\"")
        }
        guard let thumbnail = item.thumbnail(maxSide) else { throw Self.notFound }
        return MediaFile(
            path: files.url(hash: item.contentHash, contentType: thumbnail.contentType, maxSide: maxSide).path,
            contentType: thumbnail.contentType, byteCount: thumbnail.byteCount, etag: "\"\(item.contentHash)-\(maxSide)\"")
    }

    /// Removes uploads nothing has referred to for the grace period, and the files no upload
    /// names any more (also those of users deleted meanwhile).
    public func sweep() async throws {
        try await onQueue { [self] in try sweepNow() }
    }

    private func process(_ upload: [UInt8], declared: ImageFormat, by userId: String) throws -> MediaItem {
        let image: InspectedImage
        let thumbnails: [Thumbnail]
        do {
            image = try ImageInspector.inspect(upload)
            guard image.format == declared else { throw Self.typeMismatch(image.format) }
            guard image.pixelCount <= limits.maxPixels else {
                throw MeetError("media.tooManyPixels", status: 422, arguments: ["maxPixels": String(limits.maxPixels)])
            }
            thumbnails = try Thumbnailer.thumbnails(of: upload, image, maxSides: limits.thumbnailSizes)
        } catch ImageError.unrecognized {
            throw Self.unsupportedType
        } catch is ImageError {
            throw MeetError("media.malformed", status: 422)
        }
        let (hash, byteCount) = try files.write(image, from: upload, thumbnails: thumbnails)
        let item = MediaItem(
            id: RandomToken.id(), uploaderId: userId, contentHash: hash, contentType: image.format.contentType, byteCount: byteCount,
            width: image.displayWidth, height: image.displayHeight,
            thumbnails: thumbnails.map {
                .init(maxSide: $0.maxSide, width: $0.width, height: $0.height, contentType: $0.format.contentType, byteCount: $0.data.count)
            },
            createdAt: now())
        do {
            try database.writer.write { [self] db in
                try checkAllowance(of: userId, adding: byteCount, in: db)
                try item.insert(db)
            }
        } catch {
            // The files may belong to no upload now: the sweep decides.
            try? database.writer.write { db in
                try db.execute(sql: "INSERT OR IGNORE INTO mediaOrphan (contentHash) VALUES (?)", arguments: [hash])
            }
            throw error
        }
        return item
    }

    /// 429 when `userId` made ``MediaLimits/uploadsPerHour`` uploads in the last hour, or when
    /// `adding` bytes would take them over ``MediaLimits/bytesPerUser``; `Retry-After` says
    /// when the oldest of those uploads leaves the hour, or when their oldest unused upload is
    /// swept and frees its space.
    private func checkAllowance(of userId: String, adding: Int, in db: Database) throws {
        let time = now().timeIntervalSince1970
        let recent = try Double.fetchAll(db, sql: """
            SELECT createdAt FROM media WHERE uploaderId = ? AND createdAt > ? ORDER BY createdAt LIMIT ?
            """, arguments: [userId, time - 3600, limits.uploadsPerHour])
        if recent.count >= limits.uploadsPerHour {
            throw MeetError("media.tooManyUploads", status: 429, headers: Self.retryAfter(recent[0] + 3600 - time))
        }
        let used = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(byteCount), 0) FROM media WHERE uploaderId = ?", arguments: [userId]) ?? 0
        if used + adding > limits.bytesPerUser {
            let oldestUnused = try Double.fetchOne(db, sql: """
                SELECT MIN(createdAt) FROM media WHERE uploaderId = ? AND \(Self.unreferenced)
                """, arguments: [userId])
            let freed = (oldestUnused ?? time) + limits.gracePeriod
            throw MeetError("media.quotaExceeded", status: 429, headers: Self.retryAfter(freed - time))
        }
    }

    private func sweepIfDue() throws {
        let time = now()
        guard lastSweep.withLock({ last in
            guard last.map({ time.timeIntervalSince($0) >= Self.sweepInterval }) ?? true else { return false }
            last = time
            return true
        }) else { return }
        try sweepNow()
    }

    private func sweepNow() throws {
        let cutoff = now().timeIntervalSince1970 - limits.gracePeriod
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM media WHERE createdAt < ? AND \(Self.unreferenced)", arguments: [cutoff])
        }
        try removeOrphanedFiles()
    }

    /// Deletes the files of hashes no upload names any more.
    private func removeOrphanedFiles() throws {
        let orphans = try database.writer.write { db in
            let hashes = try String.fetchAll(db, sql: """
                SELECT contentHash FROM mediaOrphan
                WHERE NOT EXISTS (SELECT 1 FROM media WHERE media.contentHash = mediaOrphan.contentHash)
                """)
            try db.execute(sql: "DELETE FROM mediaOrphan")
            return hashes
        }
        for hash in orphans { files.remove(hash: hash) }
    }

    /// The SQL condition for an upload (`media`) that no profile, meeting or chat message uses.
    static let unreferenced = """
        NOT EXISTS (SELECT 1 FROM profile WHERE profile.photoId = media.id)
        AND NOT EXISTS (SELECT 1 FROM meeting WHERE meeting.photoId = media.id)
        AND NOT EXISTS (SELECT 1 FROM chatMessage, json_each(chatMessage.attachments)
                        WHERE chatMessage.attachments <> '[]' AND json_each.value = media.id)
        """

    private func onQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// The whole received file, mapped rather than read, then copied once into the array the
    /// parsers walk.
    private static func read(_ url: URL) throws -> [UInt8] {
        let mapped = try Data(contentsOf: url, options: .alwaysMapped)
        return [UInt8](mapped)
    }
}

extension MediaService {
    static let notFound = MeetError("media.notFound", status: 404)
    static let unsupportedType = MeetError("media.unsupportedType", status: 415)

    static func tooLarge(_ maxBytes: Int) -> MeetError {
        MeetError("media.tooLarge", status: 413, arguments: ["maxBytes": String(maxBytes)])
    }

    static func typeMismatch(_ actual: ImageFormat) -> MeetError {
        MeetError("media.typeMismatch", status: 415, arguments: ["actual": actual.contentType])
    }

    /// `Retry-After` in whole seconds, at least one.
    static func retryAfter(_ seconds: TimeInterval) -> [String: String] {
        ["Retry-After": String(max(1, Int(seconds.rounded(.up))))]
    }
}
