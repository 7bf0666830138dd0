/* One connection's protocol: TCP connect, the WebSocket upgrade, CONNECT, SUBSCRIBE, then
 * counting what arrives. Reads go into one large shared buffer (only an incomplete frame's
 * tail is kept per session); writes gather in the session's buffer and leave in one write()
 * per event-loop pass (flush_dirty). */
#define _GNU_SOURCE
#include "stompload.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

/* Bytes a session may hold unsent; beyond it a publish is counted as unsent (the broker
 * pushes back harder than the offered rate). */
#define OUT_BOUND (8u << 20)
#define READ_BUFFER_SIZE (1u << 20)

static uint8_t read_buffer[READ_BUFFER_SIZE];
static session **dirty;
static int dirty_count;
static int errors_printed;

char first_error[160];

static void report_error(session *s, const char *what, const char *detail, size_t detail_size) {
    if (!first_error[0])
        snprintf(first_error, sizeof first_error, "%s%s%.*s", what, detail_size ? ": " : "", (int)detail_size, detail);
    if (errors_printed++ < 5 && !opt.quiet)
        fprintf(stderr, "stompload: session %d: %s%s%.*s\n", s->index, what, detail_size ? ": " : "", (int)detail_size, detail);
}

static void watch(session *s, uint32_t events, int op) {
    struct epoll_event event = { .events = events, .data.ptr = s };
    epoll_ctl(epoll_fd, op, s->fd, &event);
}

int session_open(session *s) {
    s->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->fd < 0) return -1;
    int one = 1;
    setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (opt.sources > 1) {
        /* Spread over 127.0.0.1..N so that tens of thousands of sessions do not exhaust one
         * address's ephemeral ports. */
        setsockopt(s->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        struct sockaddr_in source = { .sin_family = AF_INET };
        source.sin_addr.s_addr = htonl(0x7F000001u + (uint32_t)(s->index % opt.sources));
        if (bind(s->fd, (struct sockaddr *)&source, sizeof source) < 0) {
            close(s->fd);
            s->fd = -1;
            return -1;
        }
    }
    const ws_url *url = &opt.urls[s->url];
    struct sockaddr_in target = { .sin_family = AF_INET, .sin_port = htons((uint16_t)url->port) };
    inet_pton(AF_INET, url->host, &target.sin_addr);
    s->started_ns = now_ns();
    s->phase = PHASE_TCP;
    handshaking++;
    if (connect(s->fd, (struct sockaddr *)&target, sizeof target) < 0 && errno != EINPROGRESS) {
        session_close(s, "connect failed");
        return -1;
    }
    watch(s, EPOLLIN | EPOLLOUT, EPOLL_CTL_ADD);
    s->watching_writes = 1;
    return 0;
}

void session_close(session *s, const char *why) {
    if (s->phase == PHASE_CLOSED || s->fd < 0) return;
    if (s->phase != PHASE_READY) {
        stats.failed_connects++;
        handshaking--;
        report_error(s, "could not set up", why, strlen(why));
    } else {
        stats.closed++;
        stats.ready--;
        report_error(s, "closed", why, strlen(why));
    }
    close(s->fd);  /* also leaves the epoll set */
    s->fd = -1;
    s->phase = PHASE_CLOSED;
    s->out_start = s->out_end = 0;
}

static void ready(session *s) {
    s->phase = PHASE_READY;
    handshaking--;
    stats.ready++;
    histogram_record(&stats.connect, now_ns() - s->started_ns);
}

/* ---- writing ---- */

void dirty_init(int sessions) {
    dirty = calloc((size_t)sessions, sizeof *dirty);
}

uint8_t *session_reserve(session *s, size_t size) {
    if (s->out_end + size > s->out_capacity) {
        if (s->out_start > 0) { /* slide what is left to the front */
            memmove(s->out, s->out + s->out_start, s->out_end - s->out_start);
            s->out_end -= s->out_start;
            s->out_start = 0;
        }
        if (s->out_end + size > s->out_capacity) {
            size_t capacity = s->out_capacity ? s->out_capacity : 4096;
            while (capacity < s->out_end + size) capacity *= 2;
            if (capacity > OUT_BOUND) return NULL;
            s->out = realloc(s->out, capacity);
            s->out_capacity = (uint32_t)capacity;
        }
    }
    uint8_t *room = s->out + s->out_end;
    s->out_end += (uint32_t)size;
    if (!s->dirty) {
        s->dirty = 1;
        dirty[dirty_count++] = s;
    }
    return room;
}

void session_send_frame(session *s, const char *stomp, size_t size) {
    uint8_t header[14];
    size_t header_size = ws_client_header(header, 1, size);
    uint8_t *out = session_reserve(s, header_size + size);
    if (!out) {
        session_close(s, "send buffer over its bound");
        return;
    }
    memcpy(out, header, header_size);
    memcpy(out + header_size, stomp, size);
}

void session_flush(session *s) {
    if (s->phase == PHASE_CLOSED || s->phase == PHASE_TCP) return;
    while (s->out_start < s->out_end) {
        ssize_t n = write(s->fd, s->out + s->out_start, s->out_end - s->out_start);
        if (n < 0) {
            if (errno == EAGAIN) break;
            if (errno == EINTR) continue;
            session_close(s, strerror(errno));
            return;
        }
        s->out_start += (uint32_t)n;
    }
    int pending = s->out_start < s->out_end;
    if (!pending) s->out_start = s->out_end = 0;
    if (pending != s->watching_writes) {
        watch(s, pending ? EPOLLIN | EPOLLOUT : EPOLLIN, EPOLL_CTL_MOD);
        s->watching_writes = (uint8_t)pending;
    }
    s->last_sent_ns = now_ns();
}

void flush_dirty(void) {
    for (int i = 0; i < dirty_count; i++) {
        dirty[i]->dirty = 0;
        session_flush(dirty[i]);
    }
    dirty_count = 0;
}

/* ---- the STOMP conversation ---- */

static void send_connect(session *s) {
    char frame[4096];
    int heartbeat = s->role == ROLE_IDLE ? opt.heartbeat_ms : 0;
    int size = snprintf(frame, sizeof frame,
                        "CONNECT\naccept-version:1.2,1.1,1.0\nhost:%s\nlogin:%s\npasscode:%s\nheart-beat:%d,%d\n\n",
                        opt.vhost, opt.login, s->passcode, heartbeat, heartbeat);
    session_send_frame(s, frame, (size_t)size + 1); /* the NUL ends the frame */
}

static void send_subscribe(session *s, const char *destination, int id) {
    char frame[1024];
    int size = snprintf(frame, sizeof frame, "SUBSCRIBE\nid:%d\ndestination:%s\nack:auto\nreceipt:s%d\n\n", id, destination, id);
    session_send_frame(s, frame, (size_t)size + 1);
    s->awaited_receipts++;
}

static void connected(session *s) {
    switch (s->role) {
    case ROLE_SUBSCRIBER:
        send_subscribe(s, subscribe_destinations[s->room], 0);
        s->phase = PHASE_SUBSCRIBE;
        break;
    case ROLE_CHAT:
        /* Refusals (rate limit, membership) arrive there, carrying the SEND's receipt-id. */
        send_subscribe(s, "/user/queue/errors", 0);
        if (opt.chat_subscribe) send_subscribe(s, subscribe_destinations[s->room], 1);
        s->phase = PHASE_SUBSCRIBE;
        break;
    default:
        ready(s);
    }
}

static int in_window(uint64_t t) { return window_start_ns && t >= window_start_ns && t < window_end_ns; }

/* A chat SEND's RECEIPT (or its refusal): frees its slot in the window. */
static void chat_answered(session *s, const char *receipt, size_t size, uint64_t now, int refused) {
    uint64_t number = strtoull(receipt, NULL, 10);
    (void)size;
    if (s->in_flight == 0) return;
    uint64_t due = s->due_ns[number % (uint64_t)opt.window];
    s->in_flight--;
    if (refused) {
        stats.refusals++;
    } else {
        stats.receipts++;
        if (in_window(now)) stats.receipts_in_window++;
        if (in_window(due)) histogram_record(&stats.latency, now - due);
    }
    chat_top_up(s, now);
}

static void on_message(session *s, const stomp_frame *frame, uint64_t now) {
    if (s->role == ROLE_CHAT) {
        size_t size;
        const char *receipt = stomp_header(frame, "receipt-id", &size);
        if (receipt) { /* a refusal on /user/queue/errors */
            report_error(s, "refused", frame->body, frame->body_size);
            chat_answered(s, receipt, size, now, 1);
            return;
        }
    }
    stats.deliveries++;
    int counted = in_window(now);
    stats.deliveries_in_window += (uint64_t)counted;
    static uint32_t countdown;
    if (countdown-- == 0) {
        countdown = (uint32_t)opt.latency_sample - 1;
        uint64_t stamp = frame->body_size >= STAMP_SIZE && frame->body[0] == '@' ? stamp_find(frame->body, STAMP_SIZE)
                                                                                 : stamp_find(frame->body, frame->body_size);
        if (stamp && in_window(stamp)) {
            stats.stamped_in_window++;
            histogram_record(&stats.latency, now > stamp ? now - stamp : 0);
        }
    }
}

static void on_frame(session *s, const stomp_frame *frame, uint64_t now) {
    size_t size;
    switch (frame->command) {
    case STOMP_MESSAGE:
        on_message(s, frame, now);
        break;
    case STOMP_HEARTBEAT:
        stats.heartbeats_received++;
        break;
    case STOMP_CONNECTED:
        if (s->phase == PHASE_CONNECT) connected(s);
        break;
    case STOMP_RECEIPT: {
        const char *id = stomp_header(frame, "receipt-id", &size);
        if (!id) break;
        if (id[0] == 's') {
            if (s->phase == PHASE_SUBSCRIBE && --s->awaited_receipts == 0) ready(s);
        } else if (s->role == ROLE_CHAT) {
            chat_answered(s, id, size, now, 0);
        }
        break;
    }
    case STOMP_ERROR: {
        stats.errors++;
        const char *message = stomp_header(frame, "message", &size);
        if (message) report_error(s, "ERROR", message, size);
        else report_error(s, "ERROR", frame->body, frame->body_size);
        session_close(s, "ERROR frame");
        break;
    }
    default:
        break;
    }
}

/* The STOMP frames of one WebSocket message (a broker may put several, or heart-beat EOLs, in one). */
static void on_stomp(session *s, const uint8_t *data, size_t size, uint64_t now) {
    while (size > 0 && s->phase != PHASE_CLOSED) {
        stomp_frame frame;
        int found = stomp_scan((const char *)data, size, &frame);
        if (found <= 0) {
            stats.errors++;
            report_error(s, found < 0 ? "malformed STOMP frame" : "STOMP frame split across WebSocket messages", "", 0);
            return;
        }
        on_frame(s, &frame, now);
        data += frame.frame_size;
        size -= frame.frame_size;
    }
}

/* Keeps `size` bytes at `data` for the next read. */
static void keep(uint8_t **buffer, uint32_t *buffer_size, uint32_t *capacity, const uint8_t *data, size_t size) {
    if (size > *capacity) {
        *capacity = (uint32_t)(size < 4096 ? 4096 : size * 2);
        *buffer = realloc(*buffer, *capacity);
    }
    memmove(*buffer, data, size);
    *buffer_size = (uint32_t)size;
}

/* Handles the complete WebSocket frames in [data, data + size); returns the bytes used. */
static size_t on_websocket(session *s, const uint8_t *data, size_t size, uint64_t now) {
    size_t used = 0;
    while (s->phase != PHASE_CLOSED) {
        ws_frame frame;
        int found = ws_parse_frame(data + used, size - used, &frame);
        if (found == 0) break;
        if (found < 0 || frame.masked) {
            session_close(s, "malformed WebSocket frame");
            break;
        }
        const uint8_t *payload = data + used + frame.header;
        used += frame.header + frame.length;
        switch (frame.opcode) {
        case 1:
        case 2:
            if (frame.fin) {
                on_stomp(s, payload, frame.length, now);
                break;
            }
            s->message_size = 0;
            /* fall through: the first fragment */
            __attribute__((fallthrough));
        case 0: {
            size_t total = s->message_size + frame.length;
            if (total > s->message_capacity) {
                s->message_capacity = (uint32_t)(total * 2);
                s->message = realloc(s->message, s->message_capacity);
            }
            memcpy(s->message + s->message_size, payload, frame.length);
            s->message_size = (uint32_t)total;
            if (frame.fin) on_stomp(s, s->message, s->message_size, now);
            break;
        }
        case 8:
            session_close(s, "closed by the broker");
            break;
        case 9: { /* ping: answer pong with its payload */
            uint8_t *out = session_reserve(s, 6 + frame.length);
            if (out) {
                ws_client_header(out, 10, frame.length);
                memcpy(out + 6, payload, frame.length);
            }
            break;
        }
        default:
            break;
        }
    }
    return used;
}

/* The upgrade's answer: 1 done (its bytes consumed into *used), 0 more needed, -1 refused. */
static int on_upgrade(session *s, const uint8_t *data, size_t size, size_t *used) {
    const uint8_t *end = memmem(data, size, "\r\n\r\n", 4);
    if (!end) return size > 16384 ? -1 : 0;
    if (size < 12 || memcmp(data, "HTTP/1.1 101", 12) != 0) {
        const uint8_t *line = memchr(data, '\r', size);
        report_error(s, "upgrade refused", (const char *)data, line ? (size_t)(line - data) : 0);
        return -1;
    }
    *used = (size_t)(end - data) + 4;
    return 1;
}

static void send_upgrade(session *s) {
    const ws_url *url = &opt.urls[s->url];
    char request[2048];
    int size = snprintf(request, sizeof request,
                        "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Key: c3RvbXBsb2FkIGtleSAxMg==\r\nSec-WebSocket-Version: 13\r\n"
                        "Sec-WebSocket-Protocol: v12.stomp, v11.stomp, v10.stomp\r\n\r\n",
                        url->path, url->host, url->port);
    uint8_t *out = session_reserve(s, (size_t)size);
    memcpy(out, request, (size_t)size);
    s->phase = PHASE_UPGRADE;
}

static void on_readable(session *s, uint64_t now) {
    size_t have = s->carry_size;
    if (have) memcpy(read_buffer, s->carry, have);
    s->carry_size = 0;
    ssize_t n = read(s->fd, read_buffer + have, READ_BUFFER_SIZE - have);
    if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            s->carry_size = (uint32_t)have;
            return;
        }
        session_close(s, n == 0 ? "connection closed by the broker" : strerror(errno));
        return;
    }
    have += (size_t)n;
    size_t used = 0;
    if (s->phase == PHASE_UPGRADE) {
        int done = on_upgrade(s, read_buffer, have, &used);
        if (done < 0) {
            session_close(s, "upgrade refused");
            return;
        }
        if (done == 0) {
            keep(&s->carry, &s->carry_size, &s->carry_capacity, read_buffer, have);
            return;
        }
        s->phase = PHASE_CONNECT;
        send_connect(s);
    }
    used += on_websocket(s, read_buffer + used, have - used, now);
    if (s->phase == PHASE_CLOSED) return;
    if (have - used >= READ_BUFFER_SIZE / 2) {
        session_close(s, "a WebSocket frame larger than the read buffer");
        return;
    }
    if (used < have) keep(&s->carry, &s->carry_size, &s->carry_capacity, read_buffer + used, have - used);
}

void session_io(session *s, uint32_t events, uint64_t now) {
    if (s->phase == PHASE_TCP) {
        int error = 0;
        socklen_t length = sizeof error;
        getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &error, &length);
        if (error || (events & (EPOLLERR | EPOLLHUP))) {
            session_close(s, error ? strerror(error) : "connect failed");
            return;
        }
        if (!(events & EPOLLOUT)) return;
        send_upgrade(s);
        session_flush(s);
        return;
    }
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) on_readable(s, now);
    if (s->phase != PHASE_CLOSED && (events & EPOLLOUT)) session_flush(s);
}

/* ---- chat ---- */

void chat_top_up(session *s, uint64_t now) {
    if (s->phase != PHASE_READY) return;
    while (sending && s->in_flight < (uint32_t)opt.window) {
        uint64_t number = s->next_receipt++;
        char text[4096];
        int pad = opt.size > STAMP_SIZE + 1 ? opt.size - STAMP_SIZE - 1 : 0;
        if (pad > 3000) pad = 3000;
        static char padding[3000];
        if (!padding[0]) memset(padding, 'x', sizeof padding);
        char stamp[STAMP_SIZE];
        stamp_write(stamp, now);
        int size = snprintf(text, sizeof text,
                            "SEND\ndestination:%s\ncontent-type:application/json\nreceipt:%llu\n\n"
                            "{\"text\":\"%.*s %.*s\",\"clientMessageId\":\"load-%d-%d-%llu\"}",
                            send_destinations[s->room], (unsigned long long)number, STAMP_SIZE, stamp, pad, padding,
                            (int)getpid(), s->index, (unsigned long long)number);
        session_send_frame(s, text, (size_t)size + 1);
        if (s->phase == PHASE_CLOSED) return;
        s->due_ns[number % (uint64_t)opt.window] = now;
        s->in_flight++;
        stats.published++;
        if (in_window(now)) stats.published_in_window++;
    }
}

char *pattern_expand(const char *pattern, const char *room) {
    const char *mark = strstr(pattern, "{room}");
    size_t size = strlen(pattern) + strlen(room) + 1;
    char *out = malloc(size);
    if (!mark) {
        strcpy(out, pattern);
    } else {
        snprintf(out, size, "%.*s%s%s", (int)(mark - pattern), pattern, room, mark + 6);
    }
    return out;
}
