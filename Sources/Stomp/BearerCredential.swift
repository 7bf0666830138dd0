/// The one reading of `Authorization: Bearer <token>` shared by the REST middleware, the
/// WebSocket upgrade and STOMP CONNECT, so that a header one of them accepts the others accept
/// too (they used to disagree on spaces).
///
/// The scheme is case-insensitive (RFC 9110 §11.1); spaces or tabs separate it from the token
/// and may trail it; a token is one run of non-blank characters (RFC 6750's `b64token` is
/// narrower, but the token's own check refuses anything unknown anyway).
public enum BearerCredential {
    /// The token of a `Bearer` credential, or nil for another scheme, no token, or a token
    /// with blanks inside.
    public static func token(in authorization: String) -> String? {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let text = authorization.drop(while: blank)
        guard let schemeEnd = text.firstIndex(where: blank), text[..<schemeEnd].lowercased() == "bearer" else { return nil }
        var token = text[schemeEnd...].drop(while: blank)
        while let last = token.last, blank(last) { token = token.dropLast() }
        guard !token.isEmpty, !token.contains(where: blank) else { return nil }
        return String(token)
    }
}
