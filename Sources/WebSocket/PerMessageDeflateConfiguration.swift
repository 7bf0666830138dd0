/// How the server offers and uses permessage-deflate (RFC 7692).
public struct PerMessageDeflateConfiguration: Sendable, Hashable {
    /// The largest LZ77 window the server compresses with, as a power of two (9...15).
    /// zlib cannot make raw deflate streams with an 8-bit window, so offers that demand
    /// `server_max_window_bits=8` are declined.
    public var serverMaxWindowBits: Int = 15
    /// The window the server asks clients to stay within when they allow it (8...15); a
    /// smaller window means less inflate memory per connection.
    public var clientMaxWindowBits: Int = 15
    /// Reset the compressor after every message even if the client did not ask for it.
    public var serverNoContextTakeover: Bool = false
    /// Ask clients to reset their compressor after every message.
    public var clientNoContextTakeover: Bool = false
    /// zlib compression level (1 fastest ... 9 smallest).
    public var compressionLevel: Int32 = 6
    /// zlib memory level (1...9): memory for the compressor's internal state.
    public var memoryLevel: Int32 = 8
    /// Messages shorter than this are sent uncompressed: for them deflate costs more than it saves.
    public var minimumMessageSize: Int = 64

    /// The defaults: full windows, context takeover, level 6.
    public init() {}
}
