import Hummingbird
import Metrics

/// Counts requests and records their latency by method, route pattern and status, into the
/// factory given (not the global one, so each application keeps its own registry).
struct MetricsMiddleware: RouterMiddleware {
    let factory: any MetricsFactory

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        // The route pattern, not the path, keeps the label set small; unmatched paths share one.
        let dimensions = [
            ("method", request.method.rawValue),
            ("route", context.endpointPath ?? "NotFound"),
            ("status", String(response.status.code)),
        ]
        Counter(label: "http_requests_total", dimensions: dimensions, factory: factory).increment()
        Metrics.Timer(label: "http_request_duration_seconds", dimensions: dimensions, factory: factory)
            .record(duration: ContinuousClock.now - start)
        return response
    }
}
