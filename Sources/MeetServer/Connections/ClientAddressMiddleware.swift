import Hummingbird

/// Behind a trusted reverse proxy (`--trusted-proxies`), takes the client address from the
/// forwarding headers the proxy appended; every other request keeps its TCP peer's address.
struct ClientAddressMiddleware: RouterMiddleware {
    let trustedProxies: TrustedProxies

    func handle(_ request: Request, context: AppRequestContext,
                next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        context.clientAddress = trustedProxies.clientAddress(
            peer: context.clientAddress,
            forwardedFor: request.headers[values: .init("X-Forwarded-For")!],
            forwarded: request.headers[values: .init("Forwarded")!])
        return try await next(request, context)
    }
}
