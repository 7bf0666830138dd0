/// How the server offers and uses permessage-deflate (RFC 7692).
public struct PerMessageDeflateConfiguration: Sendable, Hashable {
    /// The largest LZ77 window the server compresses with, as a power of two (9...15).
    /// zlib cannot make raw deflate streams with an 8-bit window, so offers that demand
    /// `server_max_window_bits=8` are declined.
    public var serverMaxWindowBits: Int = 15
    /// The window the server asks clients to stay within when they allow it (8...15); a
    /// smaller window means less inflate memory per connection.
    public var clientMaxWindowBits: Int = 15
    /// Compress each message on its own even if the client did not ask for it (RFC 7692 lets
    /// the server announce it to any offer). On by default: an idle connection then holds no
    /// compressor (about 256 KiB at memory level 8), the thread's one is shared, and a broadcast
    /// is compressed once for all its subscribers on a loop. Chat messages are short, so
    /// context takeover would buy little and cost most of a session's memory.
    public var serverNoContextTakeover: Bool = true
    /// Ask clients to compress each message on its own (RFC 7692 lets the server ask any
    /// client that offered permessage-deflate). On by default, for the same reason: no
    /// per-connection inflater (about 40 KiB with a full window) outlives a message.
    public var clientNoContextTakeover: Bool = true
    /// zlib compression level (1 fastest ... 9 smallest).
    public var compressionLevel: Int32 = 6
    /// zlib memory level (1...9): memory for the compressor's internal state.
    public var memoryLevel: Int32 = 8
    /// Messages shorter than this are sent uncompressed: for them deflate costs more than it saves.
    public var minimumMessageSize: Int = 64

    /// The defaults: full windows, no context takeover either way, level 6.
    public init() {}
}
