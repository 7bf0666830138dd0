import Foundation
import NIOHTTP1
import Stomp

/// The bearer token a WebSocket upgrade request carries, for STOMP clients that cannot put it
/// in CONNECT: the `Authorization: Bearer` header, else the `access_token` query parameter
/// (browsers cannot set headers on a WebSocket).
enum StompUpgradeToken {
    static func token(in head: HTTPRequestHead) -> String? {
        if let header = head.headers.first(name: "authorization"), let token = BearerCredential.token(in: header) { return token }
        guard let query = head.uri.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == "access_token" {
                return String(parts[1]).removingPercentEncoding ?? String(parts[1])
            }
        }
        return nil
    }
}
