import Hummingbird
import MeetCore

/// `POST /media`'s answer: `{id, url, width, height, contentType, thumbnails}`, where each
/// thumbnail is `{maxSide, url, width, height, contentType}`.
struct MediaBody: ResponseEncodable {
    struct ThumbnailBody: Encodable {
        var maxSide: Int
        var url: String
        var width: Int
        var height: Int
        var contentType: String
    }

    var id: String
    var url: String
    var width: Int
    var height: Int
    var contentType: String
    var thumbnails: [ThumbnailBody]

    init(_ item: MediaItem, linkBase: String) {
        id = item.id
        url = Self.url(of: item.id, linkBase: linkBase)
        width = item.width
        height = item.height
        contentType = item.contentType
        thumbnails = item.thumbnails.map {
            ThumbnailBody(
                maxSide: $0.maxSide, url: "\(Self.url(of: item.id, linkBase: linkBase))/\($0.maxSide)", width: $0.width,
                height: $0.height, contentType: $0.contentType)
        }
    }

    /// Where an upload is read: the same address chat messages give as a sender's `photoUrl`.
    static func url(of id: String, linkBase: String) -> String {
        "\(linkBase)/api/v1/media/\(id)"
    }
}
