/* The pure parts of the STOMP-over-WebSocket load generator: WebSocket framing (client side),
 * the little STOMP parsing it needs, the latency stamp, ws:// URLs. No I/O, no allocation:
 * unit-tested by units.c (Tests/Interop/test_stompload_units.py). */
#ifndef STOMPLOAD_WIRE_H
#define STOMPLOAD_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* ---- WebSocket (RFC 6455) ---- */

/* Writes the header of one masked client frame (FIN set, `opcode`, `length` payload bytes)
 * with an all-zero masking key, so that the payload goes out unchanged: the key makes the
 * XOR a no-op and every server must accept it (the RFC asks clients for unpredictable keys
 * to protect proxies, which loopback has none of). Returns the header size (6, 8 or 14). */
size_t ws_client_header(uint8_t *out, int opcode, uint64_t length);

/* One server frame found at the start of a buffer. */
typedef struct {
    int opcode;       /* 1 text, 2 binary, 0 continuation, 8 close, 9 ping, 10 pong */
    int fin;
    int masked;       /* a client's frame (only the sink reads those) */
    uint8_t key[4];   /* its masking key */
    size_t header;    /* bytes before the payload */
    uint64_t length;  /* payload bytes */
} ws_frame;

/* Decodes the frame header at `data`: 1 when the whole frame (header and payload) is in the
 * `size` bytes, 0 when more bytes are needed, -1 when it is malformed. The caller refuses
 * the wrong side's frames (`masked`). */
int ws_parse_frame(const uint8_t *data, size_t size, ws_frame *frame);

/* ---- STOMP ---- */

enum stomp_command { STOMP_OTHER, STOMP_MESSAGE, STOMP_RECEIPT, STOMP_CONNECTED, STOMP_ERROR, STOMP_HEARTBEAT };

/* One STOMP frame found in a WebSocket message. */
typedef struct {
    enum stomp_command command;
    const char *headers;  /* first header line */
    size_t headers_size;  /* up to and including the blank line's first \n */
    const char *body;
    size_t body_size;
    size_t frame_size;    /* bytes consumed, trailing NUL and EOLs included */
} stomp_frame;

/* Scans one frame at `data`: 1 found, 0 incomplete (no NUL yet), -1 malformed. A lone
 * EOL is a heart-beat (STOMP_HEARTBEAT, one or two bytes). Only the command and the
 * body's bounds are worked out; headers are looked up on demand. */
int stomp_scan(const char *data, size_t size, stomp_frame *frame);

/* The value of header `name` (e.g. "receipt-id") in the frame's headers, its length in
 * `*length`; NULL when absent. The first occurrence wins, as STOMP 1.2 says. */
const char *stomp_header(const stomp_frame *frame, const char *name, size_t *length);

/* ---- Latency stamp: "@T" and 16 lower-case hex digits of a CLOCK_MONOTONIC time in ns ---- */

#define STAMP_SIZE 18

/* Writes the stamp for `ns` (18 bytes, no NUL). */
void stamp_write(char *out, uint64_t ns);

/* Finds the first stamp in `data` and returns its time; 0 when there is none. */
uint64_t stamp_find(const char *data, size_t size);

/* ---- ws://host:port/path ---- */

typedef struct {
    char host[64];
    int port;
    char path[256];
} ws_url;

/* Parses a ws:// URL (IPv4 dotted host or "localhost", port default 80, path default "/").
 * Returns 0, or -1 for anything else (wss:// included: TLS is not the broker's work here). */
int ws_url_parse(const char *text, ws_url *url);

#endif
