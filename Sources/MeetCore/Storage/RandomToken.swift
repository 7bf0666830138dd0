import Crypto
import Foundation

/// Random identifiers and secrets, base64url-encoded without padding.
public enum RandomToken {
    /// An opaque 128-bit id for a stored row (users, meetings, ...): unguessable, URL-safe,
    /// and never starting with "-", which a command line (`meetupd admin users show ID`) would
    /// take for an option: one id in 64 did.
    public static func id() -> String {
        var id = make(byteCount: 16)
        while id.hasPrefix("-") { id = make(byteCount: 16) }
        return id
    }

    /// A 256-bit secret for bearer, confirmation and reset tokens.
    public static func secret() -> String {
        make(byteCount: 32)
    }

    /// Whether `text` could be an id a client was handed (1 to 64 base64url characters):
    /// what a reference to a stored row (a photo) must look like before it is looked up,
    /// so that nothing else (a path, markup) is ever stored in its place.
    public static func isWellFormedId(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
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

private extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
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
