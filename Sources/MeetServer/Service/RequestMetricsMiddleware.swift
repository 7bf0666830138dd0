import Hummingbird
import Metrics
import Synchronization

/// Counts requests and records their latency by method, route pattern and status, into the
/// factory given (not the global one, so each application keeps its own registry).
///
/// Named apart from Hummingbird's own `MetricsMiddleware`, which this app does not use. The
/// counter and timer of each (method, route, status) are made once and kept: looking them up
/// per request in the factory cost a lock and a label join each time.
final class RequestMetricsMiddleware: RouterMiddleware, Sendable {
    private struct Key: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    private let factory: any MetricsFactory
    private let handles = Mutex<[Key: (Counter, Metrics.Timer)]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        // The route pattern, not the path, keeps the label set small; unmatched paths share one.
        let key = Key(method: request.method.rawValue, route: context.endpointPath ?? "NotFound", status: response.status.code)
        let (counter, timer) = handles(for: key)
        counter.increment()
        timer.record(duration: ContinuousClock.now - start)
        return response
    }

    private func handles(for key: Key) -> (Counter, Metrics.Timer) {
        handles.withLock { handles in
            if let made = handles[key] { return made }
            let dimensions = [("method", key.method), ("route", key.route), ("status", String(key.status))]
            let made = (
                Counter(label: "http_requests_total", dimensions: dimensions, factory: factory),
                Metrics.Timer(label: "http_request_duration_seconds", dimensions: dimensions, factory: factory))
            handles[key] = made
            return made
        }
    }
}
