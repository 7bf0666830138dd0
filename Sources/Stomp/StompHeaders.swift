/// A frame's headers in wire order. Lookups return the first occurrence, as STOMP 1.1+ requires
/// for repeated headers; later repeats are kept so that a relay can forward them unchanged.
public struct StompHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// The headers as `(name, value)` pairs, in the order they appear on the wire.
    public private(set) var pairs: [(name: String, value: String)]

    /// Creates headers from `(name, value)` pairs kept in this order.
    public init(_ pairs: [(name: String, value: String)] = []) {
        self.pairs = pairs
    }

    /// No headers yet, with room for `capacity` without growing (a decoded frame's few).
    init(reservingCapacity capacity: Int) {
        pairs = []
        pairs.reserveCapacity(capacity)
    }

    /// Creates headers from a literal, kept in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.pairs = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`, or `nil`.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Appends a header, even when the name is already present (the first one still wins).
    public mutating func add(_ name: String, _ value: String) {
        pairs.append((name: name, value: value))
    }

    /// Replaces every occurrence of `name` by one header with `value`, or removes it for `nil`.
    public mutating func set(_ name: String, _ value: String?) {
        pairs.removeAll { $0.name == name }
        if let value { pairs.append((name: name, value: value)) }
    }

    /// The number of header lines, repeats included.
    public var count: Int { pairs.count }

    public static func == (lhs: StompHeaders, rhs: StompHeaders) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }
}
