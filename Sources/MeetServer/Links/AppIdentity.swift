/// The mobile apps that may open the service's https links (universal links on iOS, app
/// links on Android), for the `/.well-known` documents. Nothing is claimed until configured.
public struct AppIdentity: Sendable {
    /// iOS apps as `TEAMID.bundle.id`.
    public var iosAppIds: [String] = []
    /// The Android package name (`org.example.meetup`).
    public var androidPackage: String?
    /// SHA-256 fingerprints of the Android signing certificates (`14:6D:E9:...`).
    public var androidCertificateFingerprints: [String] = []

    public init() {}
}
