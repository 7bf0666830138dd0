/* Unit tests of the load generator's pure parts (wire.c, histogram.c): WebSocket framing,
 * STOMP scanning, the latency stamp, URLs, percentiles. Built and run by
 * Tests/Interop/test_stompload_units.py; prints each failure and exits non-zero on any. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "wire.h"

static int failures;

#define CHECK(condition)                                                          \
    do {                                                                          \
        if (!(condition)) {                                                       \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #condition); \
            failures++;                                                           \
        }                                                                         \
    } while (0)

static void client_frames(void) {
    uint8_t out[14];
    CHECK(ws_client_header(out, 1, 5) == 6);
    CHECK(out[0] == 0x81 && out[1] == (0x80 | 5) && out[2] == 0 && out[5] == 0);
    CHECK(ws_client_header(out, 2, 300) == 8);
    CHECK(out[1] == (0x80 | 126) && out[2] == 1 && out[3] == 44);
    CHECK(ws_client_header(out, 1, 70000) == 14);
    CHECK(out[1] == (0x80 | 127) && out[7] == 1 && out[8] == 0x11 && out[9] == 0x70);
    /* What we write, the sink's parser reads back as masked with a zero key. */
    uint8_t frame[64];
    size_t header = ws_client_header(frame, 1, 3);
    memcpy(frame + header, "abc", 3);
    ws_frame parsed;
    CHECK(ws_parse_frame(frame, header + 3, &parsed) == 1);
    CHECK(parsed.masked && parsed.length == 3 && parsed.header == 6 && parsed.fin && parsed.opcode == 1);
    CHECK(ws_parse_frame(frame, header + 2, &parsed) == 0); /* payload incomplete */
}

static void server_frames(void) {
    ws_frame f;
    const uint8_t small[] = {0x81, 3, 'a', 'b', 'c', 0x82};
    CHECK(ws_parse_frame(small, 5, &f) == 1 && f.header == 2 && f.length == 3 && !f.masked);
    CHECK(ws_parse_frame(small, 1, &f) == 0);
    uint8_t medium[4 + 300] = {0x81, 126, 1, 44};
    CHECK(ws_parse_frame(medium, sizeof medium, &f) == 1 && f.header == 4 && f.length == 300);
    CHECK(ws_parse_frame(medium, 3, &f) == 0);
    CHECK(ws_parse_frame(medium, 200, &f) == 0);
    const uint8_t reserved[] = {0xC1, 0}; /* RSV1 without an extension */
    CHECK(ws_parse_frame(reserved, 2, &f) == -1);
    const uint8_t long_ping[] = {0x89, 126, 0, 200};
    CHECK(ws_parse_frame(long_ping, 4, &f) == -1);
    const uint8_t fragment[] = {0x01, 1, 'x'};
    CHECK(ws_parse_frame(fragment, 3, &f) == 1 && !f.fin && f.opcode == 1);
}

static void stomp_frames(void) {
    stomp_frame f;
    const char message[] = "MESSAGE\ndestination:/topic/a\nsubscription:0\r\nmessage-id:7\n\nhello\0\n\nRECEIPT";
    CHECK(stomp_scan(message, sizeof message - 1, &f) == 1);
    CHECK(f.command == STOMP_MESSAGE && f.body_size == 5 && memcmp(f.body, "hello", 5) == 0);
    CHECK(f.frame_size == strlen("MESSAGE\ndestination:/topic/a\nsubscription:0\r\nmessage-id:7\n\nhello") + 3);
    size_t length;
    const char *value = stomp_header(&f, "subscription", &length);
    CHECK(value && length == 1 && value[0] == '0'); /* the \r is not part of the value */
    value = stomp_header(&f, "message-id", &length);
    CHECK(value && length == 1 && value[0] == '7');
    CHECK(stomp_header(&f, "message", &length) == NULL); /* a prefix of a name is not the name */
    CHECK(stomp_header(&f, "receipt-id", &length) == NULL);
    const char *rest = message + f.frame_size;
    CHECK(stomp_scan(rest, strlen(rest), &f) == 0); /* no NUL yet */
    CHECK(stomp_scan(message, 20, &f) == 0);         /* headers cut */
    const char receipt[] = "RECEIPT\r\nreceipt-id:s0\r\n\r\n";
    CHECK(stomp_scan(receipt, sizeof receipt, &f) == 1 && f.command == STOMP_RECEIPT && f.body_size == 0);
    CHECK(stomp_header(&f, "receipt-id", &length) && length == 2);
    CHECK(stomp_scan("\n", 1, &f) == 1 && f.command == STOMP_HEARTBEAT && f.frame_size == 1);
    CHECK(stomp_scan("\r\n", 2, &f) == 1 && f.command == STOMP_HEARTBEAT && f.frame_size == 2);
    const char error[] = "ERROR\nmessage:bad\n\n";
    CHECK(stomp_scan(error, sizeof error, &f) == 1 && f.command == STOMP_ERROR);
    const char connected[] = "CONNECTED\nversion:1.2\n\n";
    CHECK(stomp_scan(connected, sizeof connected, &f) == 1 && f.command == STOMP_CONNECTED);
    const char other[] = "MESSAGES\n\n";
    CHECK(stomp_scan(other, sizeof other, &f) == 1 && f.command == STOMP_OTHER);
}

static void stamps(void) {
    char text[64] = "{\"text\":\"";
    uint64_t t = 0x0123456789abcdefULL;
    stamp_write(text + 9, t);
    strcpy(text + 9 + STAMP_SIZE, " xx\"}");
    CHECK(stamp_find(text, strlen(text)) == t);
    CHECK(stamp_find(text, 9 + STAMP_SIZE - 1) == 0); /* cut short */
    CHECK(stamp_find("@Tnot-a-stamp-at-all @T00000000000000ff", 39) == 0xff);
    CHECK(stamp_find("no stamp here", 13) == 0);
}

static void urls(void) {
    ws_url u;
    CHECK(ws_url_parse("ws://127.0.0.1:15674/ws", &u) == 0 && u.port == 15674 && strcmp(u.path, "/ws") == 0);
    CHECK(ws_url_parse("ws://localhost", &u) == 0 && strcmp(u.host, "127.0.0.1") == 0 && u.port == 80 && strcmp(u.path, "/") == 0);
    CHECK(ws_url_parse("wss://127.0.0.1/ws", &u) == -1);
    CHECK(ws_url_parse("ws://example.org/ws", &u) == -1);
    CHECK(ws_url_parse("ws://127.0.0.1:0/ws", &u) == -1);
    CHECK(ws_url_parse("ws://127.0.0.1:99999", &u) == -1);
}

static void histograms(void) {
    static histogram h, other;
    CHECK(histogram_quantile(&h, 0.5) == 0);
    for (uint64_t v = 1; v <= 100000; v++) histogram_record(&h, v * 1000); /* 1 us ... 100 ms */
    uint64_t p50 = histogram_quantile(&h, 0.5), p99 = histogram_quantile(&h, 0.99);
    CHECK(p50 >= 50000000 && p50 <= 50000000 * 1.008);
    CHECK(p99 >= 99000000 && p99 <= 99000000 * 1.008);
    CHECK(histogram_quantile(&h, 1.0) == 100000000); /* the exact maximum */
    for (uint64_t v = 0; v < 256; v++) histogram_record(&other, v); /* exact below 256 ns */
    CHECK(histogram_quantile(&other, 0.5) == 128);
    histogram_record(&other, UINT64_MAX / 2); /* beyond the last bucket: kept in it */
    CHECK(other.max == UINT64_MAX / 2);
    histogram_merge(&h, &other);
    CHECK(h.total == 100000 + 257 && h.max == UINT64_MAX / 2);
}

int main(void) {
    client_frames();
    server_frames();
    stomp_frames();
    stamps();
    urls();
    histograms();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("stompload units: all checks passed\n");
    return 0;
}
