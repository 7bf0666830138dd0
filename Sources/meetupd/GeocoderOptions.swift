import ArgumentParser
import Foundation
import MeetServer

/// `--geocoder` and `--nominatim-url`: where `meetupd serve` looks places up.
struct GeocoderOptions: ParsableArguments {
    @Option(help: "gazetteer (offline, bundled) or nominatim. [env: MEETUPD_GEOCODER] (default: gazetteer)")
    var geocoder: String?

    @Option(help: "Root URL of the Nominatim API, for --geocoder nominatim. [env: MEETUPD_NOMINATIM_URL]")
    var nominatimUrl: String?

    func resolved() throws -> GeocoderChoice {
        switch CommonOptions.setting(geocoder, "MEETUPD_GEOCODER")?.lowercased() ?? "gazetteer" {
        case "gazetteer":
            return .gazetteer
        case "nominatim":
            guard let url = CommonOptions.setting(nominatimUrl, "MEETUPD_NOMINATIM_URL") else {
                throw ValidationError("--geocoder nominatim needs --nominatim-url (or MEETUPD_NOMINATIM_URL).")
            }
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased()), parsed.host != nil else {
                throw ValidationError("The Nominatim URL must be an http or https URL, not '\(url)'.")
            }
            return .nominatim(url: url)
        case let other:
            throw ValidationError("Unknown geocoder '\(other)'; use gazetteer or nominatim.")
        }
    }
}
