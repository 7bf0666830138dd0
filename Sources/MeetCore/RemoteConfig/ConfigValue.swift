import Foundation

/// A JSON value of a configuration document, kept as written so that clients get back
/// exactly what the operator pushed.
public indirect enum ConfigValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ConfigValue])
    case object([String: ConfigValue])

    /// Reads any JSON value; numbers become doubles.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ConfigValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ConfigValue].self))
        }
    }

    /// Writes the value back as the same JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            // Whole numbers go out without a fraction, as they were most likely written.
            if value.rounded() == value, abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    subscript(key: String) -> ConfigValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    var number: Double? {
        if case .number(let number) = self { number } else { nil }
    }

    /// JSON with sorted keys: the same value always gives the same bytes (ETags, diffs).
    public func canonicalJSON(pretty: Bool = false) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a value built from JSON cannot fail.
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }
}
