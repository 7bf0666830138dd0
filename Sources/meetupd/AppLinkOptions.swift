import ArgumentParser
import Foundation
import MeetServer

/// The apps that may open the service's https links, for `/.well-known/...`.
struct AppLinkOptions: ParsableArguments {
    @Option(help: "An iOS app allowed to open the service's links, as TEAMID.bundle.id; repeat for more. [env: MEETUPD_IOS_APP_IDS, comma-separated] (default: none)")
    var iosAppId: [String] = []

    @Option(help: "The Android app's package name. [env: MEETUPD_ANDROID_PACKAGE] (default: none)")
    var androidPackage: String?

    @Option(help: "SHA-256 fingerprint of the Android app's signing certificate (AA:BB:...); repeat for more. [env: MEETUPD_ANDROID_CERT_FINGERPRINTS, comma-separated]")
    var androidCertFingerprint: [String] = []

    func resolved() throws -> AppIdentity {
        var identity = AppIdentity()
        identity.iosAppIds = Self.list(iosAppId, "MEETUPD_IOS_APP_IDS")
        identity.androidPackage = CommonOptions.setting(androidPackage, "MEETUPD_ANDROID_PACKAGE")
        identity.androidCertificateFingerprints = Self.list(androidCertFingerprint, "MEETUPD_ANDROID_CERT_FINGERPRINTS")
        for id in identity.iosAppIds where id.split(separator: ".").count < 3 {
            throw ValidationError("An iOS app id is TEAMID.bundle.id, not '\(id)'.")
        }
        if let package = identity.androidPackage, package.split(separator: ".").count < 2 || package.contains(" ") {
            throw ValidationError("An Android package name looks like org.example.app, not '\(package)'.")
        }
        for print in identity.androidCertificateFingerprints where print.split(separator: ":").count != 32 {
            throw ValidationError("A certificate fingerprint is 32 hex bytes separated by colons, not '\(print)'.")
        }
        if identity.androidPackage != nil && identity.androidCertificateFingerprints.isEmpty {
            throw ValidationError("--android-package needs at least one --android-cert-fingerprint.")
        }
        return identity
    }

    private static func list(_ flags: [String], _ variable: String) -> [String] {
        if !flags.isEmpty { return flags }
        return CommonOptions.setting(nil, variable)?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
    }
}
