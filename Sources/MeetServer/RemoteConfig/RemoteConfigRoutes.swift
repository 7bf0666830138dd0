import Foundation
import Hummingbird
import MeetCore

/// `GET /config` (remote configuration for this client, with ETags), its JSON Schema, and
/// `/promo`.
func addRemoteConfigRoutes(
    to api: RouterGroup<AppRequestContext>, config: RemoteConfigService, promos: PromoService, links: AppLinks
) throws {
    let schema = try bundledResource("config-schema", withExtension: "json")
    api.get("config") { request, context in
        let client = try ConfigClient(request, userId: context.userId)
        let (json, etag) = try await config.configuration(for: client)
        var headers: HTTPFields = [.eTag: etag, .cacheControl: "private, max-age=60"]
        if request.headers[.ifNoneMatch].map({ EntityTags($0).matches(etag) }) ?? false {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json)))
    }
    api.get("config/schema.json") { _, _ in
        Response(
            status: .ok, headers: [.contentType: "application/schema+json", .cacheControl: "public, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(bytes: schema)))
    }
    api.get("promo") { request, context in
        let client = try ConfigClient(request, userId: try context.requireUser())
        guard let promo = try await promos.current(for: client) else { return Response(status: .noContent) }
        return try PromoBody(promo, links: links).response(from: request, context: context)
    }
    api.post("promo/{id}/dismiss") { _, context in
        try await promos.dismiss(try context.parameters.require("id"), by: try context.requireUser())
        return HTTPResponse.Status.noContent
    }
}

extension ConfigClient {
    /// The client as its query describes it (`platform`, `appVersion`, `locale`, each
    /// optional); a value that cannot be read answers 422 naming it.
    init(_ request: Request, userId: String?) throws {
        var query = QueryParameters(request)
        let platform = query.value("platform", ConfigClient.Platform.init(rawValue:))
        let version = query.value("appVersion") { AppVersion($0) }
        let locale = query.value("locale") { tag in
            tag.count <= 35 && tag.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") } ? tag.replacingOccurrences(of: "_", with: "-") : nil
        }
        try query.check()
        self.init(platform: platform, appVersion: version, locale: locale, userId: userId)
    }
}

/// `If-None-Match`: `*` or a list of (possibly weak) entity tags.
struct EntityTags {
    let header: String

    init(_ header: String) {
        self.header = header
    }

    func matches(_ etag: String) -> Bool {
        header.split(separator: ",").contains { tag in
            let tag = tag.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}

/// A promo as the app shows it.
struct PromoBody: ResponseEncodable {
    var id: String
    var title: String
    var text: String
    var imageMediaId: String?
    var deeplink: String?
    var meetingId: String?
    var startsAt: Date
    var endsAt: Date

    init(_ promo: Promo, links: AppLinks) {
        id = promo.id
        title = promo.title
        text = promo.text
        imageMediaId = promo.imageMediaId
        meetingId = promo.meetingId
        // A promo about a meeting opens it unless told otherwise.
        deeplink = promo.deeplink ?? promo.meetingId.map { links.meeting($0).app }
        startsAt = promo.startsAt
        endsAt = promo.endsAt
    }
}
