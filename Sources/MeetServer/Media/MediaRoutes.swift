import Foundation
import Hummingbird
import MeetCore

/// `POST /media` and `GET /media/{id}` (and `/media/{id}/{size}` for thumbnails).
///
/// An upload is the raw image as the request body, its type in `Content-Type`: what iOS's
/// `URLSession.upload(for:fromFile:)` and OkHttp's `RequestBody` send with no extra code.
func addMediaRoutes(to api: RouterGroup<AppRequestContext>, media: MediaService, linkBase: String) {
    let fileIO = FileIO()
    api.post("media") { request, context -> EditedResponse<MediaBody> in
        let userId = try context.requireUser()
        let incoming = try await media.receive(
            declaring: request.headers[.contentType], length: request.headers[.contentLength].flatMap { Int($0) }, by: userId)
        for try await part in request.body {
            try part.withUnsafeReadableBytes { try incoming.append($0) }
        }
        let body = MediaBody(try await media.store(incoming, by: userId), linkBase: linkBase)
        return EditedResponse(status: .created, headers: [.location: body.url], response: body)
    }
    api.get("media/{id}") { request, context in
        try await serveMedia(request, context, media: media, fileIO: fileIO, maxSide: nil)
    }
    api.get("media/{id}/{size}") { request, context in
        // A size that is not a number names no thumbnail.
        let maxSide = Int(try context.parameters.require("size")) ?? -1
        return try await serveMedia(request, context, media: media, fileIO: fileIO, maxSide: maxSide)
    }
}

/// Answers with the file, or 304 when the client's copy is current, or the part it asked
/// for. Files never change under their URL, so clients may keep them for a year; `private`
/// because who may read one depends on the token.
private func serveMedia(
    _ request: Request, _ context: AppRequestContext, media: MediaService, fileIO: FileIO, maxSide: Int?
) async throws -> Response {
    let viewer = try context.requireUser()
    let file = try await media.file(try context.parameters.require("id"), maxSide: maxSide, for: viewer)
    var headers: HTTPFields = [.eTag: file.etag, .cacheControl: "private, max-age=31536000, immutable", .acceptRanges: "bytes"]
    if let tags = request.headers[.ifNoneMatch], entityTags(tags, match: file.etag) {
        return Response(status: .notModified, headers: headers)
    }
    headers[.contentType] = file.contentType
    var range = 0...(file.byteCount - 1)
    var status = HTTPResponse.Status.ok
    // A Range under an If-Range naming another version is ignored: the client gets it whole.
    if let header = request.headers[.range], request.headers[.ifRange].map({ $0 == file.etag }) ?? true,
       let requested = ByteRange(header: header, length: file.byteCount) {
        guard case .satisfiable(let part) = requested else {
            throw MeetError("media.rangeNotSatisfiable", status: 416, headers: ["Content-Range": "bytes */\(file.byteCount)"])
        }
        range = part
        status = .partialContent
        headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(file.byteCount)"
    }
    headers[.contentLength] = String(range.count)
    return Response(status: status, headers: headers, body: try await fileIO.loadFile(path: file.path, range: range, context: context))
}

/// Whether an `If-None-Match` list names `etag` (weak comparison, `*` for any).
private func entityTags(_ list: String, match etag: String) -> Bool {
    list.split(separator: ",").contains { tag in
        let trimmed = tag.trimmingCharacters(in: .whitespaces)
        return trimmed == "*" || trimmed == etag || trimmed == "W/" + etag
    }
}
