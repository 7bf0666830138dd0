import Crypto
import NIOCore
import NIOHTTP1

/// A refused upgrade: the HTTP status and headers the client gets instead of 101.
public struct WebSocketUpgradeRefusal: Error, Sendable, Equatable {
    /// The response status, e.g. 400, 401, 403, 404, 426.
    public var status: HTTPResponseStatus
    /// Extra response headers, e.g. `Sec-WebSocket-Version: 13` with 426.
    public var headers: HTTPHeaders
    /// A one-line explanation sent as the plain-text body.
    public var reason: String

    /// Creates a refusal.
    public init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], reason: String = "") {
        self.status = status
        self.headers = headers
        self.reason = reason.isEmpty ? status.reasonPhrase : reason
    }
}

/// A handshake that passed RFC 6455 §4.2.1, with what the server will answer.
struct WebSocketHandshake: Sendable {
    /// RFC 6455 §1.3: the GUID appended to the key before hashing.
    private static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Accept` value.
    var accept: String
    /// The subprotocol chosen, in the server's preference order.
    var subprotocol: String?
    /// The agreed permessage-deflate parameters, if any.
    var perMessageDeflate: PerMessageDeflateParameters?

    /// Validates an upgrade request, or says which status refuses it.
    init(request head: HTTPRequestHead, configuration: WebSocketConfiguration) throws(WebSocketUpgradeRefusal) {
        guard head.method == .GET else {
            throw WebSocketUpgradeRefusal(status: .methodNotAllowed, headers: ["Allow": "GET"])
        }
        guard head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1) else {
            throw WebSocketUpgradeRefusal(status: .badRequest, reason: "WebSocket needs HTTP/1.1")
        }
        let headers = head.headers
        guard headers.contains(name: "host") else {
            throw WebSocketUpgradeRefusal(status: .badRequest, reason: "Host is required")
        }
        guard headers[canonicalForm: "upgrade"].contains(where: { $0.lowercased() == "websocket" }) else {
            throw WebSocketUpgradeRefusal(status: .badRequest, reason: "Upgrade must be websocket")
        }
        guard headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "upgrade" }) else {
            throw WebSocketUpgradeRefusal(status: .badRequest, reason: "Connection must include Upgrade")
        }
        guard headers["sec-websocket-version"] == ["13"] else {
            throw WebSocketUpgradeRefusal(
                status: .upgradeRequired,
                headers: ["Sec-WebSocket-Version": "13"],
                reason: "only WebSocket version 13 is supported"
            )
        }
        let keys = headers["sec-websocket-key"]
        guard keys.count == 1, let key = keys.first, Self.isValidKey(key) else {
            throw WebSocketUpgradeRefusal(status: .badRequest, reason: "Sec-WebSocket-Key must be 16 bytes in base64")
        }
        if let allowed = configuration.allowedOrigins, let origin = headers.first(name: "origin"),
            !allowed.contains(origin)
        {
            throw WebSocketUpgradeRefusal(status: .forbidden, reason: "origin not allowed")
        }
        self.accept = Self.acceptValue(forKey: key)
        let offered = Set(headers[canonicalForm: "sec-websocket-protocol"].map(String.init))
        self.subprotocol = configuration.subprotocols.first(where: offered.contains)
        self.perMessageDeflate = configuration.perMessageDeflate.flatMap {
            PerMessageDeflateNegotiation.negotiate(offers: headers["sec-websocket-extensions"], configuration: $0)
        }
    }

    /// The 101 response's WebSocket headers.
    var responseHeaders: HTTPHeaders {
        var headers: HTTPHeaders = ["Sec-WebSocket-Accept": self.accept]
        if let subprotocol { headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol) }
        if let perMessageDeflate {
            headers.add(name: "Sec-WebSocket-Extensions", value: perMessageDeflate.responseValue)
        }
        return headers
    }

    /// base64(SHA-1(key + GUID)), RFC 6455 §4.2.2.
    static func acceptValue(forKey key: String) -> String {
        Base64.encode(Insecure.SHA1.hash(data: Array((key + Self.guid).utf8)))
    }

    /// A key is the base64 form of 16 bytes: 22 alphabet characters and "==".
    static func isValidKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else {
            return false
        }
        return bytes[..<22].allSatisfy { Base64.value(of: $0) != nil }
    }
}

/// The little of base64 the handshake needs.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func value(of character: UInt8) -> UInt8? {
        alphabet.firstIndex(of: character).map(UInt8.init)
    }

    static func encode<Bytes: Sequence<UInt8>>(_ input: Bytes) -> String {
        let bytes = Array(input)
        var output = [UInt8]()
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let word = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0..<4 {
                let sextet = Int(word >> (18 - 6 * UInt32(position))) & 0x3F
                output.append(position <= chunk.count ? alphabet[sextet] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
