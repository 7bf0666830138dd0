import Foundation
import Hummingbird
import MeetCore
import Mustache

/// What the https links of `AppLinks` answer in a browser (the app opens them itself where it
/// is installed), and the `/.well-known` documents by which the apps claim them.
func addLinkRoutes(
    to router: Router<AppRequestContext>, meetings: MeetingService, links: AppLinks, identity: AppIdentity, localizer: Localizer
) throws {
    let page = try LinkPage(localizer: localizer)
    router.get(".well-known/apple-app-site-association") { _, _ in
        guard !identity.iosAppIds.isEmpty else { throw MeetError("appLink.notConfigured", status: 404) }
        return JSONDocument(WellKnown.appleAppSiteAssociation(identity))
    }
    router.get(".well-known/assetlinks.json") { _, _ in
        guard identity.androidPackage != nil else { throw MeetError("appLink.notConfigured", status: 404) }
        return JSONDocument(WellKnown.assetLinks(identity))
    }
    router.get("m/{id}") { request, context in
        let id = try context.parameters.require("id")
        let language = localizer.language(acceptLanguage: request.headers[.acceptLanguage])
        guard let meeting = try await meetings.sharedPreview(id) else {
            return page.unavailable(language: language)
        }
        return page.meeting(meeting, link: links.meeting(id), language: language)
    }
    // The other claimed links only hand over to the app.
    let handOvers: [(path: String, link: @Sendable (Request, AppRequestContext) throws -> AppLink)] = [
        ("c/{id}", { _, context in links.chat(try context.parameters.require("id")) }),
        ("friends/requests", { _, _ in links.friendRequests }),
        ("auth/confirm", { request, _ in links.confirmEmail(token: request.uri.queryParameters["token"].map(String.init) ?? "") }),
        ("auth/reset", { request, _ in links.resetPassword(token: request.uri.queryParameters["token"].map(String.init) ?? "") }),
    ]
    for handOver in handOvers {
        router.get(RouterPath(handOver.path)) { request, context in
            page.openInApp(try handOver.link(request, context), language: localizer.language(acceptLanguage: request.headers[.acceptLanguage]))
        }
    }
}

/// Bytes served as `application/json` exactly as built.
struct JSONDocument: ResponseGenerator {
    let json: Data

    init(_ value: ConfigValue) {
        json = value.canonicalJSON()
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(bytes: json)))
    }
}

/// The documents Apple and Google fetch to learn which apps may open the service's links.
enum WellKnown {
    static func appleAppSiteAssociation(_ identity: AppIdentity) -> ConfigValue {
        let components = AppLinks.claimedPaths.map { ConfigValue.object(["/": .string($0)]) }
        return .object([
            "applinks": .object([
                "details": .array([.object([
                    "appIDs": .array(identity.iosAppIds.map(ConfigValue.string)),
                    "components": .array(components),
                ])])
            ])
        ])
    }

    static func assetLinks(_ identity: AppIdentity) -> ConfigValue {
        .array([.object([
            "relation": .array([.string("delegate_permission/common.handle_all_urls")]),
            "target": .object([
                "namespace": .string("android_app"),
                "package_name": .string(identity.androidPackage ?? ""),
                "sha256_cert_fingerprints": .array(identity.androidCertificateFingerprints.map(ConfigValue.string)),
            ]),
        ])])
    }
}
