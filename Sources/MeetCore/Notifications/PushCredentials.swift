import _CryptoExtras
import Crypto
import Foundation

/// APNs token-based authentication: an ES256 JWT signed with the `.p8` key Apple issues,
/// naming the key id and the team id. Apple accepts a token for an hour and refuses one
/// renewed more often than every 20 minutes, so callers keep one and renew it in between.
public struct APNsSigningKey: Sendable {
    /// The key's raw scalar: the key type itself is not `Sendable`.
    let key: Data
    /// The key's id as Apple issued it (the token's `kid`).
    public let keyId: String
    /// The Apple developer team the key belongs to (the token's `iss`).
    public let teamId: String

    /// Reads the PEM text of a `.p8` file.
    public init(pem: String, keyId: String, teamId: String) throws {
        key = try P256.Signing.PrivateKey(pemRepresentation: pem).rawRepresentation
        self.keyId = keyId
        self.teamId = teamId
    }

    /// The provider token issued at `time`.
    public func providerToken(issuedAt time: Date) throws -> String {
        let header = JWT.segment(["alg": "ES256", "kid": keyId])
        let claims = JWT.segment(["iss": teamId, "iat": Int(time.timeIntervalSince1970)])
        let input = header + "." + claims
        // JWS wants the raw 64-byte r‖s signature, not DER.
        let signature = try P256.Signing.PrivateKey(rawRepresentation: key).signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + JWT.base64URL(signature)
    }
}

/// An FCM service account (the JSON file the Firebase console hands out): what is needed to
/// obtain OAuth2 access tokens with a self-signed RS256 JWT (RFC 7523).
public struct FCMServiceAccount: Sendable {
    /// The Firebase project pushes are sent through (`project_id`).
    public let projectId: String
    /// The service account's address, the issuer of its assertions (`client_email`).
    public let clientEmail: String
    /// Where access tokens are obtained.
    public let tokenURI: String
    /// The key in DER: the key type itself is not `Sendable`.
    let key: Data

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    /// Reads the service account's JSON.
    public init(json: Data) throws {
        struct File: Decodable {
            var project_id: String
            var client_email: String
            var private_key: String
            var token_uri: String
        }
        let file = try JSONDecoder().decode(File.self, from: json)
        projectId = file.project_id
        clientEmail = file.client_email
        tokenURI = file.token_uri
        key = try _RSA.Signing.PrivateKey(pemRepresentation: file.private_key).derRepresentation
    }

    /// The signed assertion to exchange for an access token, valid for an hour from `time`.
    public func assertion(issuedAt time: Date) throws -> String {
        let issued = Int(time.timeIntervalSince1970)
        let header = JWT.segment(["alg": "RS256", "typ": "JWT"])
        let claims = JWT.segment([
            "iss": clientEmail, "scope": Self.scope, "aud": tokenURI, "iat": issued, "exp": issued + 3600,
        ])
        let input = header + "." + claims
        let signature = try _RSA.Signing.PrivateKey(derRepresentation: key).signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + JWT.base64URL(signature.rawRepresentation)
    }
}

/// The compact JWS encoding both tokens share.
enum JWT {
    static func segment(_ object: [String: any Sendable]) -> String {
        // Sorted keys: the same claims always make the same token text.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return base64URL(data)
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
