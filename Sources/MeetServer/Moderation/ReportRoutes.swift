import Hummingbird
import MeetCore

/// `POST /reports` and `GET /me/reports`: users report abuse and follow their own reports.
func addReportRoutes(to api: RouterGroup<AppRequestContext>, reports: ReportService) {
    api.post("reports") { request, context in
        let me = try context.requireUser()
        let body = try await request.decode(as: ReportRequest.self, context: context)
        let draft = ReportDraft(targetType: body.targetType, targetId: body.targetId, reason: body.reason, details: body.details)
        return EditedResponse(status: .created, response: try await reports.file(draft, by: me))
    }
    api.get("me/reports") { _, context in
        ItemList(items: try await reports.reports(by: try context.requireUser()))
    }
}

struct ReportRequest: Decodable {
    var targetType: String
    var targetId: String
    var reason: String
    var details: String?
}

extension Report: ResponseEncodable {}
