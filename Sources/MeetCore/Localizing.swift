/// Looks up localized texts by key: problem titles and details (`<code>.title`,
/// `<code>.detail`), field problems and mail texts.
///
/// The app's string tables (`Resources/Localizable`) implement it; everything that shows
/// text to a person asks through this seam, so tests and tools can plug in their own.
public protocol Localizing: Sendable {
    /// The text of `key` in the best language for `acceptLanguage` (an `Accept-Language`
    /// header value, or a bare language tag such as a user's stored locale), with
    /// `arguments` substituted; `nil` when no table has the key.
    func localized(_ key: String, arguments: [String: String], acceptLanguage: String?) -> String?
}

extension Localizer: Localizing {}
