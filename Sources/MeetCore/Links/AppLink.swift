import Foundation

/// A place in the app, as the two links that open it: the app's own scheme (`meetup://...`),
/// for push payloads, and the https form on the public address, for mails and shares, which
/// opens the app where it is installed (universal links, app links) and a web page elsewhere.
public struct AppLink: Sendable, Equatable {
    /// `meetup://meetings/42`
    public var app: String
    /// `https://meetup.example.org/m/42`
    public var web: String
}

/// Builds every link the service hands out, on the configured public base URL, so that
/// notifications, mails and shares agree on where a thing lives.
public struct AppLinks: Sendable {
    /// The app's URL scheme.
    public static let scheme = "meetup"
    /// Paths on the public address that the app claims (the well-known documents list them).
    public static let claimedPaths = ["/m/*", "/c/*", "/friends/requests", "/auth/confirm", "/auth/reset"]

    /// `https://meetup.example.org`, no trailing slash.
    public let base: String

    /// Links on the public base URL `base` (no trailing slash).
    public init(base: String) {
        self.base = base
    }

    /// A meeting's page.
    public func meeting(_ id: String) -> AppLink {
        link(app: "meetings/" + Self.escaped(id), web: "/m/" + Self.escaped(id))
    }

    /// A chat room: a meeting's room by the meeting id.
    public func chat(_ roomId: String) -> AppLink {
        link(app: "chat/" + Self.escaped(roomId), web: "/c/" + Self.escaped(roomId))
    }

    /// The friend requests screen.
    public var friendRequests: AppLink {
        link(app: "friends/requests", web: "/friends/requests")
    }

    /// Confirms an e-mail address with a mailed token.
    public func confirmEmail(token: String) -> AppLink {
        link(app: "auth/confirm?token=" + Self.escaped(token), web: "/auth/confirm?token=" + Self.escaped(token))
    }

    /// Sets a new password with a mailed token.
    public func resetPassword(token: String) -> AppLink {
        link(app: "auth/reset?token=" + Self.escaped(token), web: "/auth/reset?token=" + Self.escaped(token))
    }

    private func link(app: String, web: String) -> AppLink {
        AppLink(app: Self.scheme + "://" + app, web: base + web)
    }

    /// Ids and tokens are base64url already; escaping keeps a stray character from changing
    /// the link's meaning.
    private static func escaped(_ part: String) -> String {
        part.addingPercentEncoding(withAllowedCharacters: .urlUnreservedCharacters) ?? part
    }
}

extension CharacterSet {
    /// RFC 3986 unreserved characters: what a path segment or query value may hold as is.
    static let urlUnreservedCharacters = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
