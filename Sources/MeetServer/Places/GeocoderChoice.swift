import MeetCore

/// Which geocoder serves `/places` and meetings' places: the bundled offline gazetteer
/// (nothing leaves the machine) or a Nominatim server for street-level addresses.
public enum GeocoderChoice: Sendable, Equatable {
    case gazetteer
    /// The Nominatim API at this root URL (`http://127.0.0.1:8088`).
    case nominatim(url: String)

    func makeGeocoder() -> any Geocoder {
        switch self {
        case .gazetteer: BundledGazetteer()
        case .nominatim(let url): NominatimGeocoder(baseURL: url)
        }
    }
}
