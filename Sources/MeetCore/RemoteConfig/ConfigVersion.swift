import Foundation

/// One pushed configuration document.
public struct ConfigVersion: Sendable, Equatable {
    /// Numbers versions in the order they were pushed, from 1.
    public var id: Int64
    /// The document as pushed (validated).
    public var document: ConfigValue
    /// The operator's note on why it was pushed, if any.
    public var comment: String?
    /// Who pushed it, as the audit log names them (`cli:<login>` or `user:<id>`).
    public var createdBy: String
    /// When it was pushed.
    public var createdAt: Date
    /// Whether it is the version clients get now.
    public var isActive: Bool

    /// How many keys the document sets.
    public var keyCount: Int { document["keys"]?.members?.count ?? 0 }
}

/// What changed for one key between two versions.
public struct ConfigChange: Sendable, Equatable {
    /// How a key differs between two versions.
    public enum Kind: String, Sendable {
        case added, removed, changed
    }

    /// The key's name, as clients look it up in the document.
    public var key: String
    /// Whether the key was added, removed or changed.
    public var kind: Kind
    /// The key's entry (default and rules) before and after, `nil` where absent.
    public var before: ConfigValue?
    /// The key's entry after the change; nil when it was removed.
    public var after: ConfigValue?

    /// The key-by-key difference from `old` to `new`, sorted by key.
    static func between(_ old: ConfigValue, _ new: ConfigValue) -> [ConfigChange] {
        let before = old["keys"]?.members ?? [:]
        let after = new["keys"]?.members ?? [:]
        return Set(before.keys).union(after.keys).sorted().compactMap { key in
            switch (before[key], after[key]) {
            case (nil, let entry?): ConfigChange(key: key, kind: .added, before: nil, after: entry)
            case (let entry?, nil): ConfigChange(key: key, kind: .removed, before: entry, after: nil)
            case (let old?, let new?) where old != new: ConfigChange(key: key, kind: .changed, before: old, after: new)
            default: nil
            }
        }
    }
}
