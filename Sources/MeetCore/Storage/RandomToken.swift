import Crypto
import Foundation

/// Random identifiers and secrets, base64url-encoded without padding.
public enum RandomToken {
    /// An opaque 128-bit id for a stored row (users, meetings, ...): unguessable, URL-safe.
    public static func id() -> String {
        make(byteCount: 16)
    }

    /// A 256-bit secret for bearer, confirmation and reset tokens.
    public static func secret() -> String {
        make(byteCount: 32)
    }

    /// The SHA-256 of a secret: the only form in which secrets are stored.
    public static func hash(_ secret: String) -> Data {
        Data(SHA256.hash(data: Data(secret.utf8)))
    }

    static func make(byteCount: Int) -> String {
        let key = SymmetricKey(size: .init(bitCount: byteCount * 8))
        return key.withUnsafeBytes { Data($0) }.base64URLEncoded
    }
}

extension Data {
    /// RFC 4648 §5 base64url without padding.
    var base64URLEncoded: String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
