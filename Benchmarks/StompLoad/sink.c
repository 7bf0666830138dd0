/* `stompload sink`: a trivial STOMP-over-WebSocket "broker" that proves the generator's own
 * ceiling, with `--fanout` the floor of any broker's fan-out, and with `--chat FILE` the floor
 * of a durable chat server (both below). It answers the upgrade (a fixed Sec-WebSocket-Accept: the generator does not check
 * it), CONNECT with CONNECTED and SUBSCRIBE with its RECEIPT, ignores SENDs, and from then on
 * writes to each subscriber, whenever its socket takes more, a prebuilt 256 KiB run of
 * 100-byte MESSAGE frames stamped with the current time. It does no per-message work beyond
 * writing the stamps, so on its own core it outruns any generator: what the generator counts
 * per second, with its core saturated, is the most it can receive. */
#define _GNU_SOURCE
#include "chat_store.h"
#include "stompload.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <signal.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define SINK_INPUT 65536
#define SINK_RUN (256 * 1024)

typedef struct {
    int fd;
    int upgraded, streaming;
    /* --chat: the sender's user id, whether the writer stored its row, SENDs not answered yet,
     * and whether the connection closed meanwhile (then it is freed with the last answer). */
    char user_id[23];
    int user_stored, in_flight, closed;
    size_t run_sent;  /* bytes of the current run already written */
    size_t in_size;
    uint8_t in[SINK_INPUT];
} sink_peer;

/* `--fanout`: a SEND is written at once to every subscriber of its destination, one write
 * system call per subscriber in subscription order, as a MESSAGE carrying the SEND's body
 * (its stamp). That is all a broker that writes each delivery on its own must do, so on one
 * core its latency and CPU per delivery at a low rate are the floor for any such broker. */
#define SINK_DESTINATIONS 4096
typedef struct {
    char name[128];
    sink_peer **peers;
    int count, capacity;
} sink_destination;

static int fanout_mode;
static sink_destination destinations[SINK_DESTINATIONS];
static int destination_count;
static unsigned long long fanout_messages, fanout_short_writes;

static sink_destination *destination_named(const char *name, size_t size, int create) {
    if (size >= sizeof destinations[0].name) return NULL;
    for (int i = 0; i < destination_count; i++)
        if (strlen(destinations[i].name) == size && memcmp(destinations[i].name, name, size) == 0) return &destinations[i];
    if (!create || destination_count == SINK_DESTINATIONS) return NULL;
    sink_destination *d = &destinations[destination_count++];
    memcpy(d->name, name, size);
    d->name[size] = '\0';
    return d;
}

/* The value of header `name` in a STOMP frame's head (`size` bytes), or NULL. */
static const char *head_value(const char *frame, size_t size, const char *name, size_t *length) {
    size_t name_size = strlen(name);
    const char *end = memmem(frame, size, "\n\n", 2);
    if (!end) return NULL;
    for (const char *line = memchr(frame, '\n', (size_t)(end - frame)); line && line < end;
         line = memchr(line + 1, '\n', (size_t)(end - line - 1))) {
        if ((size_t)(end - line) > name_size + 1 && memcmp(line + 1, name, name_size) == 0 && line[1 + name_size] == ':') {
            const char *value = line + 2 + name_size;
            *length = strcspn(value, "\n");
            return value;
        }
    }
    return NULL;
}

static void fanout_subscribe(sink_peer *p, const char *frame, size_t size) {
    size_t length;
    const char *name = head_value(frame, size, "destination", &length);
    sink_destination *d = name ? destination_named(name, length, 1) : NULL;
    if (!d) return;
    if (d->count == d->capacity) {
        d->capacity = d->capacity ? d->capacity * 2 : 16;
        d->peers = realloc(d->peers, (size_t)d->capacity * sizeof *d->peers);
    }
    d->peers[d->count++] = p;
}

/* A closed peer leaves every destination (their order is kept). */
static void fanout_forget(sink_peer *p) {
    for (int i = 0; i < destination_count; i++) {
        sink_destination *d = &destinations[i];
        int kept = 0;
        for (int j = 0; j < d->count; j++)
            if (d->peers[j] != p) d->peers[kept++] = d->peers[j];
        d->count = kept;
    }
}

/* Writes the header of an unmasked final text frame of `payload_size` bytes (below 64 KiB);
 * answers its length. */
static size_t server_frame_header(uint8_t *out, size_t payload_size) {
    out[0] = 0x81;
    if (payload_size < 126) {
        out[1] = (uint8_t)payload_size;
        return 2;
    }
    out[1] = 126;
    out[2] = (uint8_t)(payload_size >> 8);
    out[3] = (uint8_t)payload_size;
    return 4;
}

static void fanout_send(const char *frame, size_t size) {
    size_t length;
    const char *name = head_value(frame, size, "destination", &length);
    sink_destination *d = name ? destination_named(name, length, 0) : NULL;
    const char *body = memmem(frame, size, "\n\n", 2);
    if (!d || !body) return;
    body += 2;
    size_t body_size = size - (size_t)(body - frame);
    if (body_size && body[body_size - 1] == '\0') body_size--;
    static uint8_t out[8192];
    char head[256];
    int head_size = snprintf(head, sizeof head, "MESSAGE\ndestination:%s\nmessage-id:%llu\nsubscription:0\ncontent-type:text/plain\n\n",
                             d->name, ++fanout_messages);
    size_t stomp_size = (size_t)head_size + body_size + 1;
    if (stomp_size + 4 > sizeof out) return;
    size_t header = server_frame_header(out, stomp_size);
    memcpy(out + header, head, (size_t)head_size);
    memcpy(out + header + (size_t)head_size, body, body_size);
    out[header + stomp_size - 1] = '\0';
    for (int i = 0; i < d->count; i++) {
        ssize_t n = write(d->peers[i]->fd, out, header + stomp_size);
        if (n != (ssize_t)(header + stomp_size)) fanout_short_writes++;
    }
}

/* `--chat FILE`: every SEND to /app/meetings.{id}.chat is stored by a writer thread as
 * meetupd's chat writer stores it (chat_store.c: the same rows, statements and settings as the
 * anchor) and answered with its RECEIPT only after the commit. Like meetupd, SENDs from all
 * connections that arrive while one transaction is being written go together in the next, and
 * the event loop keeps reading while the writer waits for the disk. It parses only what it
 * stores (the room, the text and the clientMessageId, from stompload's plain bodies) and
 * checks nothing, so on its core its receipts per second are the floor's: what any server
 * must spend on the sockets, the WebSocket and STOMP framing and SQLite, and no more. */
typedef struct chat_post {
    struct chat_post *next;
    sink_peer *peer;
    char receipt[64], meeting_id[64], client_message_id[128];
    size_t text_size;
    char text[];
} chat_post;

static chat_store *chat_mode;
static pthread_mutex_t chat_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t chat_waiting = PTHREAD_COND_INITIALIZER;
static chat_post *chat_pending, *chat_answered;  /* both newest first */
static int chat_events;                           /* eventfd: a batch was committed */
static int chat_marker;                           /* its epoll data.ptr */

/* A list queued newest first, turned around. */
static chat_post *oldest_first(chat_post *newest) {
    chat_post *oldest = NULL;
    while (newest) {
        chat_post *next = newest->next;
        newest->next = oldest;
        oldest = newest;
        newest = next;
    }
    return oldest;
}

static void *chat_writer(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&chat_lock);
        while (!chat_pending) pthread_cond_wait(&chat_waiting, &chat_lock);
        chat_post *ordered = oldest_first(chat_pending);
        chat_pending = NULL;
        pthread_mutex_unlock(&chat_lock);
        chat_store_begin(chat_mode);
        chat_post *last = NULL;
        for (chat_post *post = ordered; post; post = post->next) {
            if (!post->peer->user_stored) {
                chat_store_add_user(chat_mode, post->peer->user_id);
                post->peer->user_stored = 1;
            }
            chat_store_post(chat_mode, post->meeting_id, post->peer->user_id, post->client_message_id, post->text,
                            post->text_size, chat_now());
            last = post;
        }
        chat_store_commit(chat_mode);
        pthread_mutex_lock(&chat_lock);
        last->next = chat_answered;
        chat_answered = ordered;
        pthread_mutex_unlock(&chat_lock);
        uint64_t one = 1;
        if (write(chat_events, &one, sizeof one) < 0) perror("stompload sink --chat");
    }
    return NULL;
}

/* Copies the JSON string value of `"key":"` in `body` (stompload's bodies escape nothing). */
static size_t json_string(const char *body, size_t size, const char *key, char *out, size_t capacity) {
    const char *start = memmem(body, size, key, strlen(key));
    if (!start) return 0;
    start += strlen(key);
    const char *end = memchr(start, '"', size - (size_t)(start - body));
    size_t length = end ? (size_t)(end - start) : 0;
    if (length >= capacity) length = capacity - 1;
    memcpy(out, start, length);
    out[length] = 0;
    return length;
}

/* A SEND to a meeting's room with a receipt, queued for the writer; the floor ignores any
 * other (stompload's chat scenario sends none). */
static void chat_send(sink_peer *p, const char *frame, size_t size) {
    static const char prefix[] = "/app/meetings.", suffix[] = ".chat";
    const size_t prefix_size = sizeof prefix - 1, suffix_size = sizeof suffix - 1;
    size_t receipt_size, destination_size;
    const char *receipt = head_value(frame, size, "receipt", &receipt_size);
    const char *destination = head_value(frame, size, "destination", &destination_size);
    const char *body = memmem(frame, size, "\n\n", 2);
    if (!receipt || !destination || !body || receipt_size >= sizeof ((chat_post *)0)->receipt
        || destination_size <= prefix_size + suffix_size || memcmp(destination, prefix, prefix_size) != 0
        || memcmp(destination + destination_size - suffix_size, suffix, suffix_size) != 0)
        return;
    size_t meeting_id_size = destination_size - prefix_size - suffix_size;
    if (meeting_id_size >= sizeof ((chat_post *)0)->meeting_id) return;
    body += 2;
    size_t body_size = size - (size_t)(body - frame);
    chat_post *post = calloc(1, sizeof *post + body_size + 1);
    post->peer = p;
    memcpy(post->receipt, receipt, receipt_size);
    memcpy(post->meeting_id, destination + prefix_size, meeting_id_size);
    post->text_size = json_string(body, body_size, "\"text\":\"", post->text, body_size + 1);
    json_string(body, body_size, "\"clientMessageId\":\"", post->client_message_id, sizeof post->client_message_id);
    p->in_flight++;
    pthread_mutex_lock(&chat_lock);
    post->next = chat_pending;
    chat_pending = post;
    pthread_cond_signal(&chat_waiting);
    pthread_mutex_unlock(&chat_lock);
}

static void send_text(sink_peer *p, const char *stomp, size_t size);

/* The committed batches' RECEIPTs, one write each, in the order of their SENDs. */
static void chat_answer(void) {
    uint64_t count;
    if (read(chat_events, &count, sizeof count) < 0) return;
    pthread_mutex_lock(&chat_lock);
    chat_post *ordered = oldest_first(chat_answered);
    chat_answered = NULL;
    pthread_mutex_unlock(&chat_lock);
    while (ordered) {
        chat_post *next = ordered->next;
        sink_peer *p = ordered->peer;
        if (!p->closed) {
            char answer[128];
            int n = snprintf(answer, sizeof answer, "RECEIPT\nreceipt-id:%s\n\n", ordered->receipt);
            send_text(p, answer, (size_t)n + 1);
        }
        if (--p->in_flight == 0 && p->closed) free(p);
        free(ordered);
        ordered = next;
    }
}

static uint8_t run_bytes[SINK_RUN];
static size_t run_size;
static size_t stamp_offsets[SINK_RUN / 64];
static int stamp_count;

static void build_run(int size) {
    char head[] = "MESSAGE\ndestination:/topic/sink\nmessage-id:1\nsubscription:0\ncontent-type:text/plain\n\n";
    size_t stomp_size = strlen(head) + (size_t)size + 1;
    while (run_size + stomp_size + 4 <= SINK_RUN) {
        uint8_t *out = run_bytes + run_size;
        size_t header = server_frame_header(out, stomp_size);
        memcpy(out + header, head, strlen(head));
        stamp_offsets[stamp_count++] = run_size + header + strlen(head);
        memset(out + header + strlen(head), 'x', (size_t)size);
        out[header + stomp_size - 1] = '\0';
        run_size += header + stomp_size;
    }
}

static void send_text(sink_peer *p, const char *stomp, size_t size) {
    uint8_t frame[512];
    frame[0] = 0x81;
    frame[1] = (uint8_t)size;
    memcpy(frame + 2, stomp, size);
    if (write(p->fd, frame, size + 2) < 0) return;
}

static void on_stomp(sink_peer *p, int epoll, char *frame, size_t size) {
    if (size >= 7 && (memcmp(frame, "CONNECT", 7) == 0 || memcmp(frame, "STOMP", 5) == 0)) {
        static const char connected[] = "CONNECTED\nversion:1.2\nheart-beat:0,0\n\n";
        send_text(p, connected, sizeof connected); /* with its NUL */
    } else if (fanout_mode && size >= 5 && memcmp(frame, "SEND\n", 5) == 0) {
        fanout_send(frame, size);
    } else if (chat_mode && size >= 5 && memcmp(frame, "SEND\n", 5) == 0) {
        chat_send(p, frame, size);
    } else if (size >= 9 && memcmp(frame, "SUBSCRIBE", 9) == 0) {
        char *receipt = memmem(frame, size, "\nreceipt:", 9);
        if (receipt) {
            char answer[128];
            int n = snprintf(answer, sizeof answer, "RECEIPT\nreceipt-id:%.*s\n\n", (int)strcspn(receipt + 9, "\n"), receipt + 9);
            send_text(p, answer, (size_t)n + 1);
        }
        if (fanout_mode) {
            fanout_subscribe(p, frame, size);
            return;
        }
        if (chat_mode) return;
        p->streaming = 1;
        struct epoll_event event = { .events = EPOLLIN | EPOLLOUT, .data.ptr = p };
        epoll_ctl(epoll, EPOLL_CTL_MOD, p->fd, &event);
    }
}

static void on_input(sink_peer *p, int epoll) {
    ssize_t n = read(p->fd, p->in + p->in_size, SINK_INPUT - p->in_size);
    if (n <= 0) {
        if (n < 0 && errno == EAGAIN) return;
        if (fanout_mode) fanout_forget(p);
        close(p->fd);
        p->closed = 1;
        if (p->in_flight == 0) free(p);
        return;
    }
    p->in_size += (size_t)n;
    size_t used = 0;
    if (!p->upgraded) {
        uint8_t *end = memmem(p->in, p->in_size, "\r\n\r\n", 4);
        if (!end) return;
        static const char answer[] = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                     "Sec-WebSocket-Accept: c2luaw==\r\nSec-WebSocket-Protocol: v12.stomp\r\n\r\n";
        if (write(p->fd, answer, sizeof answer - 1) < 0) return;
        p->upgraded = 1;
        used = (size_t)(end - p->in) + 4;
    }
    for (;;) {
        ws_frame frame;
        if (ws_parse_frame(p->in + used, p->in_size - used, &frame) != 1) break;
        uint8_t *payload = p->in + used + frame.header;
        for (uint64_t i = 0; frame.masked && i < frame.length; i++) payload[i] ^= frame.key[i & 3];
        if (frame.opcode == 1 || frame.opcode == 2) on_stomp(p, epoll, (char *)payload, frame.length);
        used += frame.header + frame.length;
    }
    memmove(p->in, p->in + used, p->in_size - used);
    p->in_size -= used;
}

/* Writes the rest of the current run; a new run is stamped with the current time. The run
 * is shared by all peers, so a peer part-way through it sees the newer stamps of a later
 * run: harmless, since the sink's latencies measure nothing. */
static void on_writable(sink_peer *p) {
    if (p->run_sent == 0) {
        char stamp[STAMP_SIZE];
        stamp_write(stamp, now_ns());
        for (int i = 0; i < stamp_count; i++) memcpy(run_bytes + stamp_offsets[i], stamp, STAMP_SIZE);
    }
    ssize_t n = write(p->fd, run_bytes + p->run_sent, run_size - p->run_sent);
    if (n > 0) p->run_sent = (p->run_sent + (size_t)n) % run_size;
}

int sink_main(int argc, char **argv) {
    int port = 0, size = 100;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fanout") == 0) fanout_mode = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--chat") == 0) chat_mode = chat_store_open(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--port") == 0) port = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--size") == 0) size = atoi(argv[++i]);
    }
    if (size < STAMP_SIZE || size > 4000) size = 100;
    build_run(size);
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    address.sin_addr.s_addr = htonl(0x7F000001u);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) < 0 || listen(listener, 4096) < 0) {
        perror("stompload sink");
        return 1;
    }
    socklen_t length = sizeof address;
    getsockname(listener, (struct sockaddr *)&address, &length);
    printf("%d\n", ntohs(address.sin_port));
    fflush(stdout);
    signal(SIGPIPE, SIG_IGN);
    int epoll = epoll_create1(0);
    struct epoll_event event = { .events = EPOLLIN, .data.ptr = NULL };
    epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &event);
    if (chat_mode) {
        chat_events = eventfd(0, EFD_NONBLOCK);
        struct epoll_event committed = { .events = EPOLLIN, .data.ptr = &chat_marker };
        epoll_ctl(epoll, EPOLL_CTL_ADD, chat_events, &committed);
        pthread_t writer;
        pthread_create(&writer, NULL, chat_writer, NULL);
    }
    struct epoll_event events[256];
    for (;;) {
        int n = epoll_wait(epoll, events, 256, -1);
        for (int i = 0; i < n; i++) {
            if (events[i].data.ptr == &chat_marker) {
                chat_answer();
                continue;
            }
            sink_peer *p = events[i].data.ptr;
            if (!p) {
                int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK);
                if (fd < 0) continue;
                p = calloc(1, sizeof *p);
                p->fd = fd;
                chat_random_id(p->user_id);
                struct epoll_event added = { .events = EPOLLIN, .data.ptr = p };
                epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &added);
                continue;
            }
            if (events[i].events & EPOLLOUT) on_writable(p);
            if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_input(p, epoll);
        }
    }
}
