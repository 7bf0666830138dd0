import NIOCore
import NIOHTTP1
import Testing
@_spi(Tooling) @testable import WebSocket

@Suite struct HandshakeTests {
    static func request(_ extra: [(String, String)] = [], dropping: Set<String> = []) -> HTTPRequestHead {
        var headers = HTTPHeaders([
            ("Host", "localhost"),
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
            ("Sec-WebSocket-Version", "13"),
        ])
        for name in dropping { headers.remove(name: name) }
        for (name, value) in extra { headers.replaceOrAdd(name: name, value: value) }
        return HTTPRequestHead(version: .http1_1, method: .GET, uri: "/ws", headers: headers)
    }

    func refusal(_ head: HTTPRequestHead, _ configuration: WebSocketConfiguration = .init()) -> WebSocketUpgradeRefusal? {
        do {
            _ = try WebSocketHandshake(request: head, configuration: configuration)
            return nil
        } catch {
            return error
        }
    }

    @Test func acceptValueMatchesRFC6455Example() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func base64EncodesAllPaddingCases() {
        #expect(Base64.encode(Array("f".utf8)) == "Zg==")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(Base64.encode(Array("foo".utf8)) == "Zm9v")
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
    }

    @Test func validRequestIsAcceptedWithTokenListsInAnyCase() throws {
        let head = Self.request([("Connection", "keep-alive, UPGRADE"), ("Upgrade", "WebSocket")])
        let handshake = try WebSocketHandshake(request: head, configuration: .init())
        #expect(handshake.responseHeaders["Sec-WebSocket-Accept"] == ["s3pPLMBiTxaQ9kYGzzhZRbK+xOo="])
    }

    @Test(arguments: [
        ("Sec-WebSocket-Version", "8"), ("Sec-WebSocket-Version", "14"),
    ])
    func otherVersionsGet426WithTheSupportedOne(name: String, value: String) {
        let refusal = self.refusal(Self.request([(name, value)]))
        #expect(refusal?.status == .upgradeRequired)
        #expect(refusal?.headers["Sec-WebSocket-Version"] == ["13"])
    }

    @Test func missingVersionGets426() {
        #expect(self.refusal(Self.request(dropping: ["Sec-WebSocket-Version"]))?.status == .upgradeRequired)
    }

    @Test(arguments: ["", "abc", "dGhlIHNhbXBsZSBub25jZQ=", "dGhlIHNhbXBsZSBub25jZQ==x", "dGhlIHNhbXBsZSBub25j!Q=="])
    func badKeysGet400(key: String) {
        #expect(self.refusal(Self.request([("Sec-WebSocket-Key", key)]))?.status == .badRequest)
    }

    @Test func missingUpgradeConnectionKeyOrHostGets400() {
        #expect(self.refusal(Self.request([("Upgrade", "h2c")]))?.status == .badRequest)
        #expect(self.refusal(Self.request([("Connection", "keep-alive")]))?.status == .badRequest)
        #expect(self.refusal(Self.request(dropping: ["Sec-WebSocket-Key"]))?.status == .badRequest)
        #expect(self.refusal(Self.request(dropping: ["Host"]))?.status == .badRequest)
    }

    @Test func nonGetAndHTTP10AreRefused() {
        var post = Self.request()
        post.method = .POST
        #expect(self.refusal(post)?.status == .methodNotAllowed)
        var old = Self.request()
        old.version = .http1_0
        #expect(self.refusal(old)?.status == .badRequest)
    }

    @Test func originAllowListRefusesOthersWith403() {
        var configuration = WebSocketConfiguration()
        configuration.allowedOrigins = ["https://app.example"]
        #expect(self.refusal(Self.request([("Origin", "https://evil.example")]), configuration)?.status == .forbidden)
        #expect(self.refusal(Self.request([("Origin", "https://app.example")]), configuration) == nil)
        #expect(self.refusal(Self.request(), configuration) == nil, "apps send no Origin")
    }

    @Test func subprotocolFollowsTheServersPreference() throws {
        var configuration = WebSocketConfiguration()
        configuration.subprotocols = ["v12.stomp", "v11.stomp", "v10.stomp"]
        let head = Self.request([("Sec-WebSocket-Protocol", "v10.stomp, v11.stomp")])
        let handshake = try WebSocketHandshake(request: head, configuration: configuration)
        #expect(handshake.subprotocol == "v11.stomp")
        #expect(handshake.responseHeaders["Sec-WebSocket-Protocol"] == ["v11.stomp"])
        let none = try WebSocketHandshake(request: Self.request([("Sec-WebSocket-Protocol", "mqtt")]), configuration: configuration)
        #expect(none.subprotocol == nil)
        #expect(none.responseHeaders["Sec-WebSocket-Protocol"].isEmpty)
    }
}
