import GRDB

/// Records whose times are stored as seconds since 1970, so that SQL compares and orders
/// them as numbers (the feed's time window, "upcoming", "not ended yet").
protocol EpochTimes: EncodableRecord, FetchableRecord {}

extension EpochTimes {
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSince1970
    }
}
