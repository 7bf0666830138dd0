import Hummingbird
import Synchronization

/// The registered routes' paths and methods, so that a path that exists under other methods
/// answers 405 with `Allow` instead of the router's plain 404.
final class RouteTable: Sendable {
    private let entries = Mutex<[(path: RouterPath, method: HTTPRequest.Method)]>([])

    /// Records the router's routes; called once every route is mounted.
    func load<Context>(from router: Router<Context>) {
        let routes = router.routes.map { (path: $0.path, method: $0.method) }
        entries.withLock { $0 = routes }
    }

    /// The methods of every route whose path pattern matches `path`.
    func methods(matching path: String) -> Set<HTTPRequest.Method> {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        return entries.withLock { entries in
            Set(entries.filter { Self.matches($0.path.components, segments) }.map(\.method))
        }
    }

    static func matches(_ pattern: [RouterPath.Element], _ segments: [Substring]) -> Bool {
        for (index, element) in pattern.enumerated() {
            if element.description == "**" { return true }
            guard index < segments.count, element ~= segments[index] else { return false }
        }
        return pattern.count == segments.count
    }
}
