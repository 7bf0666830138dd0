/// An app's version as the stores show it (`1.4.2`): up to three numbers, missing ones 0.
///
/// Pre-release and build suffixes (`1.5.0-beta.2+77`) are read as their release, so a beta
/// gets what its release will get.
public struct AppVersion: Comparable, Sendable, CustomStringConvertible {
    /// The first number.
    public var major: Int
    /// The second number; 0 when not written.
    public var minor: Int
    /// The third number; 0 when not written.
    public var patch: Int

    /// Reads `1`, `1.4` or `1.4.2` (suffixes ignored); nil for anything else or longer than 32 characters.
    public init?(_ text: some StringProtocol) {
        let release = text.prefix { $0 != "-" && $0 != "+" }
        let parts = release.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), text.count <= 32 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 6, part.allSatisfy(\.isASCIIDigit), let number = Int(part) else { return nil }
            numbers.append(number)
        }
        numbers += Array(repeating: 0, count: 3 - numbers.count)
        (major, minor, patch) = (numbers[0], numbers[1], numbers[2])
    }

    /// The release as three numbers, `1.4.0`.
    public var description: String { "\(major).\(minor).\(patch)" }

    /// Compares by major, then minor, then patch number.
    public static func < (a: AppVersion, b: AppVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }
}

/// A range of app versions written as comparators that must all hold, separated by spaces:
/// `>=1.4.0 <2.0`, `>1.2`, `=1.3.1` (a bare version means `=`).
public struct AppVersionRange: Sendable {
    enum Operator: String, CaseIterable {
        // Two-character operators first, so that `>=` is not read as `>`.
        case atLeast = ">=", atMost = "<=", above = ">", below = "<", exactly = "="
    }

    let comparators: [(Operator, AppVersion)]

    /// Reads up to four comparators separated by spaces; nil when any is malformed.
    public init?(_ text: String) {
        let words = text.split(separator: " ")
        guard !words.isEmpty, words.count <= 4 else { return nil }
        var comparators: [(Operator, AppVersion)] = []
        for word in words {
            let op = Operator.allCases.first { word.hasPrefix($0.rawValue) }
            let bound = word.dropFirst(op?.rawValue.count ?? 0)
            // Bounds are plain releases: a suffix in a rule would only mislead its reader.
            guard bound.allSatisfy({ $0.isASCIIDigit || $0 == "." }), let version = AppVersion(bound) else { return nil }
            comparators.append((op ?? .exactly, version))
        }
        self.comparators = comparators
    }

    /// Whether `version` satisfies every comparator.
    public func contains(_ version: AppVersion) -> Bool {
        comparators.allSatisfy { op, bound in
            switch op {
            case .atLeast: version >= bound
            case .atMost: version <= bound
            case .above: version > bound
            case .below: version < bound
            case .exactly: version == bound
            }
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
