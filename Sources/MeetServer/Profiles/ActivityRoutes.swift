import Hummingbird
import MeetCore

/// `/activities`: suggestions as people type, in their language, and proposals of new ones,
/// both for signed-in users.
func addActivityRoutes(to api: RouterGroup<AppRequestContext>, activities: ActivityService, localizer: Localizer) {
    // Signed-in only, like the rest of the API: typo-tolerant matching costs CPU per name.
    api.get("activities") { request, context in
        _ = try context.requireUser()
        var query = QueryParameters(request)
        let limit: Int? = query.number("limit", 10)
        try query.check()
        let language = localizer.language(acceptLanguage: request.headers[.acceptLanguage])
        let found = try await activities.suggestions(matching: query.string("q") ?? "", language: language, limit: limit ?? 10)
        return ItemList(items: found.map(ActivityBody.init))
    }
    api.post("activities") { request, context in
        let userId = try context.requireUser()
        let body = try await request.decode(as: ActivityProposal.self, context: context)
        let language = localizer.language(acceptLanguage: request.headers[.acceptLanguage])
        let (activity, created) = try await activities.propose(name: body.name, language: language, by: userId)
        return EditedResponse(status: created ? .created : .ok, response: ActivityBody(activity))
    }
}

struct ActivityProposal: Decodable {
    var name: String
}

struct ActivityBody: ResponseEncodable {
    var id: String
    var name: String
    /// How many profiles and meetings use it.
    var popularity: Int

    init(_ activity: ActivitySuggestion) {
        id = activity.id
        name = activity.name
        popularity = activity.popularity
    }
}
