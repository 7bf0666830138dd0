/* The pure parts of the load generator (see wire.h). */
#define _GNU_SOURCE
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t ws_client_header(uint8_t *out, int opcode, uint64_t length) {
    size_t n = 0;
    out[n++] = (uint8_t)(0x80 | opcode);
    if (length < 126) {
        out[n++] = (uint8_t)(0x80 | length);
    } else if (length <= 0xFFFF) {
        out[n++] = 0x80 | 126;
        out[n++] = (uint8_t)(length >> 8);
        out[n++] = (uint8_t)length;
    } else {
        out[n++] = 0x80 | 127;
        for (int shift = 56; shift >= 0; shift -= 8) out[n++] = (uint8_t)(length >> shift);
    }
    memset(out + n, 0, 4); /* the masking key */
    return n + 4;
}

int ws_parse_frame(const uint8_t *data, size_t size, ws_frame *frame) {
    if (size < 2) return 0;
    frame->fin = data[0] >> 7;
    frame->opcode = data[0] & 0x0F;
    if (data[0] & 0x70) return -1; /* no extension is negotiated: RSV bits must be clear */
    frame->masked = data[1] >> 7;
    uint64_t length = data[1] & 0x7F;
    size_t header = 2;
    if (length == 126) {
        if (size < 4) return 0;
        length = (uint64_t)data[2] << 8 | data[3];
        header = 4;
    } else if (length == 127) {
        if (size < 10) return 0;
        length = 0;
        for (int i = 2; i < 10; i++) length = length << 8 | data[i];
        if (length >> 62) return -1;
        header = 10;
    }
    if (frame->masked) {
        if (size < header + 4) return 0;
        memcpy(frame->key, data + header, 4);
        header += 4;
    }
    if (frame->opcode >= 8 && (length > 125 || !frame->fin)) return -1; /* control frames */
    frame->header = header;
    frame->length = length;
    return size - header >= length ? 1 : 0;
}

/* The command named by the line [data, data + size). */
static enum stomp_command command_of(const char *data, size_t size) {
    if (size > 0 && data[size - 1] == '\r') size--;
    switch (size) {
    case 7:
        if (memcmp(data, "MESSAGE", 7) == 0) return STOMP_MESSAGE;
        if (memcmp(data, "RECEIPT", 7) == 0) return STOMP_RECEIPT;
        break;
    case 9:
        if (memcmp(data, "CONNECTED", 9) == 0) return STOMP_CONNECTED;
        break;
    case 5:
        if (memcmp(data, "ERROR", 5) == 0) return STOMP_ERROR;
        break;
    }
    return STOMP_OTHER;
}

int stomp_scan(const char *data, size_t size, stomp_frame *frame) {
    if (size == 0) return 0;
    if (data[0] == '\n' || (data[0] == '\r' && size > 1 && data[1] == '\n')) {
        frame->command = STOMP_HEARTBEAT;
        frame->headers = frame->body = data;
        frame->headers_size = frame->body_size = 0;
        frame->frame_size = data[0] == '\n' ? 1 : 2;
        return 1;
    }
    const char *line_end = memchr(data, '\n', size);
    if (!line_end) return 0;
    frame->command = command_of(data, (size_t)(line_end - data));
    size_t pos = (size_t)(line_end - data) + 1;
    frame->headers = data + pos;
    for (;;) { /* header lines until the blank one */
        if (pos >= size) return 0;
        if (data[pos] == '\n') { pos += 1; break; }
        if (data[pos] == '\r' && pos + 1 < size && data[pos + 1] == '\n') { pos += 2; break; }
        const char *next = memchr(data + pos, '\n', size - pos);
        if (!next) return 0;
        pos = (size_t)(next - data) + 1;
    }
    frame->headers_size = (size_t)(data + pos - frame->headers);
    frame->body = data + pos;
    /* Text bodies end at the NUL; a content-length body holding NULs is not supported (no
     * scenario sends one). */
    const char *nul = memchr(data + pos, '\0', size - pos);
    if (!nul) return 0;
    frame->body_size = (size_t)(nul - frame->body);
    size_t end = (size_t)(nul - data) + 1;
    while (end < size && (data[end] == '\n' || data[end] == '\r')) end++;
    frame->frame_size = end;
    return 1;
}

const char *stomp_header(const stomp_frame *frame, const char *name, size_t *length) {
    size_t name_size = strlen(name);
    const char *line = frame->headers;
    const char *end = frame->headers + frame->headers_size;
    while (line < end) {
        const char *line_end = memchr(line, '\n', (size_t)(end - line));
        if (!line_end) break;
        size_t line_size = (size_t)(line_end - line);
        if (line_size > 0 && line[line_size - 1] == '\r') line_size--;
        if (line_size > name_size && line[name_size] == ':' && memcmp(line, name, name_size) == 0) {
            *length = line_size - name_size - 1;
            return line + name_size + 1;
        }
        line = line_end + 1;
    }
    return NULL;
}

static const char hex_digits[] = "0123456789abcdef";

void stamp_write(char *out, uint64_t ns) {
    out[0] = '@';
    out[1] = 'T';
    for (int i = 0; i < 16; i++) out[2 + i] = hex_digits[(ns >> (60 - 4 * i)) & 0xF];
}

uint64_t stamp_find(const char *data, size_t size) {
    const char *at = data;
    const char *end = data + size;
    while (end - at >= STAMP_SIZE) {
        const char *mark = memmem(at, (size_t)(end - at), "@T", 2);
        if (!mark || end - mark < STAMP_SIZE) return 0;
        uint64_t ns = 0;
        int i;
        for (i = 0; i < 16; i++) {
            char c = mark[2 + i];
            int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (digit < 0) break;
            ns = ns << 4 | (uint64_t)digit;
        }
        if (i == 16) return ns;
        at = mark + 1;
    }
    return 0;
}

int ws_url_parse(const char *text, ws_url *url) {
    if (strncmp(text, "ws://", 5) != 0) return -1;
    const char *host = text + 5;
    size_t host_size = strcspn(host, ":/");
    if (host_size == 0 || host_size >= sizeof url->host) return -1;
    memcpy(url->host, host, host_size);
    url->host[host_size] = '\0';
    if (strcmp(url->host, "localhost") == 0) strcpy(url->host, "127.0.0.1");
    const char *rest = host + host_size;
    url->port = 80;
    if (*rest == ':') {
        char *after;
        long port = strtol(rest + 1, &after, 10);
        if (after == rest + 1 || port < 1 || port > 65535) return -1;
        url->port = (int)port;
        rest = after;
    }
    if (*rest == '\0') rest = "/";
    if (*rest != '/' || strlen(rest) >= sizeof url->path) return -1;
    strcpy(url->path, rest);
    unsigned a, b, c, d;
    char tail;
    if (sscanf(url->host, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) != 4 || a > 255 || b > 255 || c > 255 || d > 255) return -1;
    return 0;
}
