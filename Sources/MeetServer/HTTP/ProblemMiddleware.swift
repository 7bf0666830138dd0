import Hummingbird
import Logging
import MeetCore
import NIOHTTP1

/// Turns every failure below it into problem+json: the app's `MeetError`s, Hummingbird's
/// HTTP errors (unknown route, wrong method, body too big) and unexpected errors (500,
/// logged, with nothing internal shown to the client).
struct ProblemMiddleware: RouterMiddleware {
    let renderer: ProblemRenderer
    let routes: RouteTable

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return renderer.response(for: meetError(for: error, request: request, context: context), request: request)
        }
    }

    func meetError(for error: any Error, request: Request, context: AppRequestContext) -> MeetError {
        switch error {
        case let error as MeetError:
            return error
        case let error as any HTTPResponseError:
            return meetError(forStatus: error.status, request: request, context: context)
        case is HTTPParserError:
            // A body the HTTP parser refused (a malformed chunk, say): the client's fault, not ours.
            return MeetError("request.malformed", status: 400)
        default:
            context.logger.error("Request failed", metadata: ["error": "\(String(reflecting: error))"])
            return MeetError("server.internal", status: 500)
        }
    }

    private func meetError(forStatus status: HTTPResponse.Status, request: Request, context: AppRequestContext) -> MeetError {
        switch status {
        case .notFound:
            let allowed = routes.methods(matching: request.uri.path)
            if !allowed.isEmpty, !allowed.contains(request.method) {
                let list = allowed.map(\.rawValue).sorted().joined(separator: ", ")
                return MeetError("request.methodNotAllowed", status: 405, arguments: ["allowed": list], headers: ["Allow": list])
            }
            return MeetError("route.notFound", status: 404)
        case .contentTooLarge:
            return MeetError("request.tooLarge", status: 413, arguments: ["maximum": String(context.maxUploadSize)])
        case .badRequest:
            return MeetError("request.malformed", status: 400)
        default:
            return MeetError("http.\(status.code)", status: status.code)
        }
    }
}
