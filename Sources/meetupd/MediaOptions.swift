import ArgumentParser
import MeetCore

/// `--media-uploads-per-hour` and `--media-quota-mib`: how much one user may upload.
struct MediaOptions: ParsableArguments {
    @Option(help: "Uploads one user may make in any hour. [env: MEETUPD_MEDIA_UPLOADS_PER_HOUR] (default: 30)")
    var mediaUploadsPerHour: Int?

    @Option(help: "MiB one user's uploads may take in all. [env: MEETUPD_MEDIA_QUOTA_MIB] (default: 200)")
    var mediaQuotaMib: Int?

    func resolved() throws -> MediaLimits {
        var limits = MediaLimits()
        if let count = try Self.positive(mediaUploadsPerHour, "MEETUPD_MEDIA_UPLOADS_PER_HOUR") { limits.uploadsPerHour = count }
        if let mebibytes = try Self.positive(mediaQuotaMib, "MEETUPD_MEDIA_QUOTA_MIB") { limits.bytesPerUser = mebibytes << 20 }
        return limits
    }

    /// A positive whole number from its flag, else its environment variable; `nil` when neither is set.
    private static func positive(_ flag: Int?, _ variable: String) throws -> Int? {
        guard let text = CommonOptions.setting(flag.map(String.init), variable) else { return nil }
        guard let value = Int(text), value > 0, value < 1 << 40 else {
            throw ValidationError("\(variable) must be a positive whole number, not '\(text)'.")
        }
        return value
    }
}
