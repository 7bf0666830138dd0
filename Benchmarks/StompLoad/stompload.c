/* stompload: options, the scenarios, the event loop and the report (see stompload.h).
 *
 *   stompload --url ws://127.0.0.1:8080/ws --passcode TOKEN --scenario fanout \
 *             --rooms 1 --subscribers 1000 --publishers 1 --rate 100000 --broker-pid PID
 *   stompload sink --port N      (a trivial broker: the generator's own ceiling)
 *   stompload sink --fanout      (a broker that only fans out, one write per delivery: the floor)
 *
 * docs/benchmarks.md ("STOMP brokers: stompload") explains every option and figure. */
#define _GNU_SOURCE
#include "stompload.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

options opt = {
    .login = "guest", .passcode = "guest", .vhost = "/",
    .scenario = "fanout", .label = "", .rooms = 1, .subscribers = 100, .publishers = 1,
    .subscribe_pattern = "/topic/sandbox.room{room}", .rate = 10000, .size = 100,
    .duration = 10, .warmup = 2, .drain = 2, .connect_timeout = 120, .sources = 1,
    .target = 1000, .handshakes = 256, .heartbeat_ms = 10000, .window = 1, .latency_sample = 1,
};
counters stats;
int epoll_fd;
uint64_t window_start_ns, window_end_ns;
char **subscribe_destinations, **send_destinations;
int handshaking;
int sending;

static session *sessions;
static int session_count;
static volatile sig_atomic_t interrupted;

uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void usage_exit(const char *problem) {
    if (problem) fprintf(stderr, "stompload: %s\n", problem);
    fprintf(stderr,
            "usage: stompload [--url ws://HOST:PORT/PATH ...] [--login L] [--passcode P] [--vhost V]\n"
            "         [--scenario fanout|fanin|idle|chat] [--label TEXT] [--rooms N] [--subscribers N] [--publishers N]\n"
            "         [--subscribe-pattern /topic/x.{room}] [--send-pattern D] [--rate DELIVERIES_PER_S] [--size BYTES]\n"
            "         [--chat-body] [--duration S] [--warmup S] [--drain S] [--connect-timeout S] [--broker-pid PID ...]\n"
            "         [--json FILE]\n"
            "         [--sources N] [--target N] [--connect-rate PER_S] [--handshakes N] [--heartbeat-ms MS]\n"
            "         [--tokens FILE] [--window N] [--chat-subscribe] [--latency-sample N] [--quiet]\n"
            "       stompload sink [--port N] [--size BYTES] [--fanout]\n");
    exit(2);
}

static double number_option(const char *name, const char *text, double minimum) {
    char *end;
    double value = strtod(text, &end);
    if (end == text || *end || !isfinite(value) || value < minimum) {
        fprintf(stderr, "stompload: --%s must be a number >= %g, not '%s'\n", name, minimum, text);
        exit(2);
    }
    return value;
}

static void parse_options(int argc, char **argv) {
    static const struct option options[] = {
        {"url", 1, 0, 'u'}, {"login", 1, 0, 'l'}, {"passcode", 1, 0, 'p'}, {"vhost", 1, 0, 'v'},
        {"scenario", 1, 0, 's'}, {"label", 1, 0, 'L'}, {"rooms", 1, 0, 'r'}, {"subscribers", 1, 0, 'S'},
        {"publishers", 1, 0, 'P'}, {"subscribe-pattern", 1, 0, 'd'}, {"send-pattern", 1, 0, 'D'},
        {"rate", 1, 0, 'R'}, {"size", 1, 0, 'z'}, {"duration", 1, 0, 't'}, {"warmup", 1, 0, 'w'},
        {"drain", 1, 0, 'x'}, {"connect-timeout", 1, 0, 'T'}, {"broker-pid", 1, 0, 'b'}, {"json", 1, 0, 'j'},
        {"sources", 1, 0, 'a'}, {"target", 1, 0, 'n'}, {"connect-rate", 1, 0, 'c'}, {"handshakes", 1, 0, 'h'},
        {"heartbeat-ms", 1, 0, 'H'}, {"tokens", 1, 0, 'k'}, {"window", 1, 0, 'W'}, {"chat-subscribe", 0, 0, 'C'},
        {"latency-sample", 1, 0, 'm'}, {"quiet", 0, 0, 'q'}, {"chat-body", 0, 0, 'B'}, {"help", 0, 0, '?'},
        {0, 0, 0, 0},
    };
    int c, subscribe_pattern_set = 0;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'u':
            if (opt.url_count == MAX_URLS) usage_exit("at most 16 --url");
            if (ws_url_parse(optarg, &opt.urls[opt.url_count++]) < 0)
                usage_exit("--url must be ws://IPV4-OR-LOCALHOST[:PORT][/PATH]");
            break;
        case 'l': opt.login = optarg; break;
        case 'p': opt.passcode = optarg; break;
        case 'v': opt.vhost = optarg; break;
        case 's': opt.scenario = optarg; break;
        case 'L': opt.label = optarg; break;
        case 'r': opt.rooms = (int)number_option("rooms", optarg, 1); break;
        case 'S': opt.subscribers = (int)number_option("subscribers", optarg, 0); break;
        case 'P': opt.publishers = (int)number_option("publishers", optarg, 0); break;
        case 'd': opt.subscribe_pattern = optarg; subscribe_pattern_set = 1; break;
        case 'D': opt.send_pattern = optarg; break;
        case 'R': opt.rate = number_option("rate", optarg, 0); break;
        case 'z': opt.size = (int)number_option("size", optarg, STAMP_SIZE); break;
        case 't': opt.duration = number_option("duration", optarg, 0.1); break;
        case 'w': opt.warmup = number_option("warmup", optarg, 0); break;
        case 'x': opt.drain = number_option("drain", optarg, 0); break;
        case 'T': opt.connect_timeout = number_option("connect-timeout", optarg, 0.1); break;
        case 'b':
            if (opt.broker_pid_count == MAX_BROKER_PIDS) usage_exit("at most 16 --broker-pid");
            opt.broker_pids[opt.broker_pid_count++] = (int)number_option("broker-pid", optarg, 1);
            break;
        case 'j': opt.json_path = optarg; break;
        case 'a': opt.sources = (int)number_option("sources", optarg, 1); break;
        case 'n': opt.target = (int)number_option("target", optarg, 1); break;
        case 'c': opt.connect_rate = number_option("connect-rate", optarg, 0); break;
        case 'h': opt.handshakes = (int)number_option("handshakes", optarg, 1); break;
        case 'H': opt.heartbeat_ms = (int)number_option("heartbeat-ms", optarg, 0); break;
        case 'k': opt.tokens_path = optarg; break;
        case 'W': opt.window = (int)number_option("window", optarg, 1); break;
        case 'C': opt.chat_subscribe = 1; break;
        case 'm': opt.latency_sample = (int)number_option("latency-sample", optarg, 1); break;
        case 'q': opt.quiet = 1; break;
        case 'B': opt.chat_body = 1; break;
        default: usage_exit(NULL);
        }
    }
    if (optind < argc) usage_exit("unexpected arguments");
    if (opt.url_count == 0) ws_url_parse("ws://127.0.0.1:8080/ws", &opt.urls[opt.url_count++]);
    if (strcmp(opt.scenario, "chat") == 0 && !subscribe_pattern_set) {
        opt.subscribe_pattern = "/topic/meetings.{room}.chat";
        if (!opt.send_pattern) opt.send_pattern = "/app/meetings.{room}.chat";
    }
    if (!opt.send_pattern) opt.send_pattern = opt.subscribe_pattern;
    if (opt.sources > 254) usage_exit("--sources is at most 254 (127.0.0.1 ... 127.0.0.254)");
}

/* ---- sessions of each scenario ---- */

static void add_session(enum role role, int room, int url, const char *passcode) {
    session *s = &sessions[session_count];
    s->index = session_count++;
    s->fd = -1;
    s->role = role;
    s->room = room;
    s->url = url;
    s->passcode = passcode;
    if (role == ROLE_CHAT) s->due_ns = calloc((size_t)opt.window, sizeof *s->due_ns);
}

static void room_destinations(int rooms, char **names) {
    subscribe_destinations = calloc((size_t)rooms, sizeof(char *));
    send_destinations = calloc((size_t)rooms, sizeof(char *));
    for (int r = 0; r < rooms; r++) {
        char generated[32];
        snprintf(generated, sizeof generated, "r%d", r);
        const char *name = names ? names[r] : generated;
        subscribe_destinations[r] = pattern_expand(opt.subscribe_pattern, name);
        send_destinations[r] = pattern_expand(opt.send_pattern, name);
    }
}

/* The --tokens file's "meetingId<TAB>token" lines: their count, meeting ids in `*ids`, tokens in `*tokens`. */
static int read_tokens(char ***ids, char ***tokens) {
    FILE *file = fopen(opt.tokens_path, "r");
    if (!file) {
        fprintf(stderr, "stompload: cannot read --tokens %s: %s\n", opt.tokens_path, strerror(errno));
        exit(2);
    }
    char line[1024];
    int lines = 0, count = 0;
    while (fgets(line, sizeof line, file)) lines++;
    rewind(file);
    *ids = calloc((size_t)lines + 1, sizeof(char *));
    *tokens = calloc((size_t)lines + 1, sizeof(char *));
    while (fgets(line, sizeof line, file)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = '\0';
        tab[strcspn(tab + 1, "\r\n") + 1] = '\0';
        (*ids)[count] = strdup(line);
        (*tokens)[count++] = strdup(tab + 1);
    }
    fclose(file);
    if (count == 0) usage_exit("the tokens file has no \"meetingId<TAB>token\" line");
    return count;
}

/* Chat senders from the tokens file, one line each; a room per meeting. */
static void chat_sessions(void) {
    char **ids, **tokens;
    int lines = read_tokens(&ids, &tokens), rooms = 0;
    char **names = calloc((size_t)lines, sizeof(char *));
    sessions = calloc((size_t)lines, sizeof *sessions);
    for (int i = 0; i < lines; i++) {
        int room = 0;
        while (room < rooms && strcmp(names[room], ids[i]) != 0) room++;
        if (room == rooms) names[rooms++] = ids[i];
        add_session(ROLE_CHAT, room, 0, tokens[i]);
    }
    opt.rooms = rooms;
    room_destinations(rooms, names);
}

static void make_sessions(void) {
    if (strcmp(opt.scenario, "chat") == 0) {
        if (!opt.tokens_path) usage_exit("--scenario chat needs --tokens FILE");
        chat_sessions();
        return;
    }
    if (strcmp(opt.scenario, "idle") == 0) {
        sessions = calloc((size_t)opt.target, sizeof *sessions);
        for (int i = 0; i < opt.target; i++) add_session(ROLE_IDLE, 0, i % opt.url_count, opt.passcode);
        return;
    }
    if (strcmp(opt.scenario, "fanout") != 0 && strcmp(opt.scenario, "fanin") != 0) usage_exit("unknown --scenario");
    /* With --tokens, a room per line (a meeting's chat), its sessions signed in with the line's token. */
    char **ids = NULL, **tokens = NULL;
    if (opt.tokens_path) opt.rooms = read_tokens(&ids, &tokens);
    int total = opt.rooms * (opt.subscribers + opt.publishers);
    sessions = calloc((size_t)total, sizeof *sessions);
    room_destinations(opt.rooms, ids);
#define ROOM_PASSCODE(room) (tokens ? tokens[room] : opt.passcode)
    for (int i = 0; i < opt.rooms * opt.subscribers; i++)
        add_session(ROLE_SUBSCRIBER, i % opt.rooms, i % opt.url_count, ROOM_PASSCODE(i % opt.rooms));
    /* publisher k of room r is publishers_base + r + k * rooms */
    for (int i = 0; i < opt.rooms * opt.publishers; i++)
        add_session(ROLE_PUBLISHER, i % opt.rooms, 0, ROOM_PASSCODE(i % opt.rooms));
#undef ROOM_PASSCODE
}

/* ---- the event loop ---- */

/* One SEND per room, built once; each publish copies it and writes the due time's stamp
 * (and, for chat drafts, its number into the clientMessageId, which must differ per message). */
typedef struct {
    uint8_t *bytes;
    size_t size, stamp_offset, number_offset;
} send_template;

static send_template *templates;

/* The body's two parts around its `--size` bytes of text (the stamp, then 'x's). Chat drafts
 * end with a clientMessageId unique to this process and publish: 16 hex digits written per publish. */
#define CHAT_BODY_HEAD "{\"text\":\""
#define CHAT_NUMBER_DIGITS 16

static void build_templates(void) {
    char tail[64] = "";
    if (opt.chat_body) snprintf(tail, sizeof tail, "\",\"clientMessageId\":\"load-%08x-%0*d\"}", (unsigned)getpid(), CHAT_NUMBER_DIGITS, 0);
    const char *head_text = opt.chat_body ? CHAT_BODY_HEAD : "";
    const char *content_type = opt.chat_body ? "application/json" : "text/plain";
    templates = calloc((size_t)opt.rooms, sizeof *templates);
    for (int r = 0; r < opt.rooms; r++) {
        char head[1024];
        int head_size = snprintf(head, sizeof head, "SEND\ndestination:%s\ncontent-type:%s\n\n%s", send_destinations[r],
                                 content_type, head_text);
        size_t stomp_size = (size_t)head_size + (size_t)opt.size + strlen(tail) + 1;
        uint8_t header[14];
        size_t header_size = ws_client_header(header, 1, stomp_size);
        send_template *t = &templates[r];
        t->size = header_size + stomp_size;
        t->bytes = malloc(t->size);
        memcpy(t->bytes, header, header_size);
        memcpy(t->bytes + header_size, head, (size_t)head_size);
        t->stamp_offset = header_size + (size_t)head_size;
        memset(t->bytes + t->stamp_offset, 'x', (size_t)opt.size);
        memcpy(t->bytes + t->stamp_offset + opt.size, tail, strlen(tail));
        t->number_offset = opt.chat_body ? t->size - 1 - 2 - CHAT_NUMBER_DIGITS : 0;
        t->bytes[t->size - 1] = '\0';
    }
}

static void dispatch(int timeout_ms_or_less, uint64_t wake_ns) {
    static struct epoll_event events[1024];
    struct timespec timeout;
    uint64_t now = now_ns();
    uint64_t wait = wake_ns > now ? wake_ns - now : 0;
    if (wait > (uint64_t)timeout_ms_or_less * 1000000u) wait = (uint64_t)timeout_ms_or_less * 1000000u;
    timeout.tv_sec = (time_t)(wait / 1000000000u);
    timeout.tv_nsec = (long)(wait % 1000000000u);
    int n = epoll_pwait2(epoll_fd, events, 1024, &timeout, NULL);
    if (n <= 0) return;
    now = now_ns();
    for (int i = 0; i < n; i++) session_io(events[i].data.ptr, events[i].events, now);
}

/* Opens sessions while fewer than --handshakes are setting up and --connect-rate allows. */
static int opened;
static uint64_t open_started_ns;

static void open_more(uint64_t now) {
    while (opened < session_count && handshaking < opt.handshakes) {
        if (opt.connect_rate > 0 && (double)(now - open_started_ns) < (double)opened * 1e9 / opt.connect_rate) break;
        session_open(&sessions[opened++]);
    }
}

static void heartbeats(uint64_t now) {
    static uint64_t last_sweep;
    if (opt.heartbeat_ms == 0 || now - last_sweep < 100000000u) return;
    last_sweep = now;
    /* Every half period: "at least every H ms" holds even when this loop runs late on a busy
     * machine, which a broker would otherwise take for a dead peer. */
    uint64_t period = (uint64_t)opt.heartbeat_ms * 500000u;
    for (int i = 0; i < session_count; i++) {
        session *s = &sessions[i];
        if (s->phase == PHASE_READY && now - s->last_sent_ns >= period) {
            uint8_t *out = session_reserve(s, 7);
            if (out) {
                ws_client_header(out, 1, 1);
                out[6] = '\n';
            }
        }
    }
}

/* Sets up every session; returns the seconds it took. */
static double set_up(void) {
    open_started_ns = now_ns();
    uint64_t deadline = open_started_ns + (uint64_t)(opt.connect_timeout * 1e9);
    while (!interrupted && (opened < session_count || handshaking > 0)) {
        uint64_t now = now_ns();
        if (now > deadline) {
            fprintf(stderr, "stompload: %d of %d sessions not set up after %.0f s\n", session_count - (int)stats.ready,
                    session_count, opt.connect_timeout);
            break;
        }
        open_more(now);
        heartbeats(now);
        flush_dirty();
        dispatch(opt.connect_rate > 0 ? 1 : 10, now + 10000000u);
    }
    return (double)(now_ns() - open_started_ns) / 1e9;
}

typedef struct {
    process_sample broker_start, broker_end;
    double own_start, own_end;
    double setup_seconds;
    long broker_rss_before_kib, broker_anon_before_kib;
    double broker_setup_cpu;   /* broker CPU seconds while the sessions were set up */
    double broker_close_cpu;   /* idle: broker CPU seconds closing them all at once */
    uint64_t closed_at_once;
    double load[3];
} run_readings;

/* The brokers' readings summed: several nodes (and the relay's broker) count as one service. */
static void probe_broker(process_sample *sample) {
    memset(sample, 0, sizeof *sample);
    for (int i = 0; i < opt.broker_pid_count; i++) {
        process_sample one;
        if (probe_process(opt.broker_pids[i], &one) < 0) continue;
        sample->cpu_seconds += one.cpu_seconds;
        sample->rss_kib += one.rss_kib;
        sample->rss_anon_kib += one.rss_anon_kib;
    }
}

/* Publishes every SEND due by `now`: open loop, the n-th at start + n / rate, stamped with
 * its due time so that any lateness (ours or the broker's) is in its latency. */
static void publish_due(uint64_t start, double interval_ns, uint64_t *next, uint64_t now, session *publishers) {
    int budget = 65536;
    for (;;) {
        uint64_t due = start + (uint64_t)((double)*next * interval_ns);
        if (due > now || due >= window_end_ns || budget-- == 0) return;
        uint64_t n = (*next)++;
        int room = (int)(n % (uint64_t)opt.rooms);
        int k = (int)((n / (uint64_t)opt.rooms) % (uint64_t)opt.publishers);
        session *s = &publishers[room + k * opt.rooms];
        stats.published++;
        if (due >= window_start_ns) stats.published_in_window++;
        send_template *t = &templates[room];
        uint8_t *out = s->phase == PHASE_READY ? session_reserve(s, t->size) : NULL;
        if (!out) {
            stats.unsent++;
            continue;
        }
        memcpy(out, t->bytes, t->size);
        stamp_write((char *)out + t->stamp_offset, due);
        if (t->number_offset) {
            char digits[CHAT_NUMBER_DIGITS + 1];
            snprintf(digits, sizeof digits, "%0*llx", CHAT_NUMBER_DIGITS, (unsigned long long)n);
            memcpy(out + t->number_offset, digits, CHAT_NUMBER_DIGITS);
        }
    }
}

static void traffic(run_readings *readings) {
    int chat = strcmp(opt.scenario, "chat") == 0;
    session *publishers = sessions + opt.rooms * opt.subscribers;
    /* Each publish reaches the room's subscribers: the publish rate is the delivery rate over them. */
    double publish_rate = opt.subscribers > 0 ? opt.rate / opt.subscribers : opt.rate;
    double interval_ns = publish_rate > 0 ? 1e9 / publish_rate : INFINITY;
    int publishing = !chat && opt.publishers > 0 && publish_rate > 0;
    if (publishing) build_templates();
    uint64_t start = now_ns();
    window_start_ns = start + (uint64_t)(opt.warmup * 1e9);
    window_end_ns = window_start_ns + (uint64_t)(opt.duration * 1e9);
    uint64_t drain_end = window_end_ns + (uint64_t)(opt.drain * 1e9);
    uint64_t next = 0;
    int started = 0, ended = 0;
    sending = 1;
    if (chat)
        for (int i = 0; i < session_count; i++) chat_top_up(&sessions[i], start);
    while (!interrupted) {
        uint64_t now = now_ns();
        if (!started && now >= window_start_ns) {
            started = 1;
            probe_broker(&readings->broker_start);
            readings->own_start = probe_own_cpu();
        }
        if (!ended && now >= window_end_ns) {
            ended = 1;
            sending = 0;
            probe_broker(&readings->broker_end);
            readings->own_end = probe_own_cpu();
        }
        if (now >= drain_end) break;
        /* Every delivery of the measured publishes arrived: nothing left to drain. */
        if (ended && !chat && opt.latency_sample == 1 && publishing &&
            stats.stamped_in_window >= stats.published_in_window * (uint64_t)opt.subscribers)
            break;
        if (ended && chat) {
            uint64_t in_flight = 0;
            for (int i = 0; i < session_count; i++) in_flight += sessions[i].in_flight;
            if (in_flight == 0) break;
        }
        if (publishing && sending) publish_due(start, interval_ns, &next, now, publishers);
        flush_dirty();
        uint64_t wake = publishing && sending ? start + (uint64_t)((double)next * interval_ns) : now + 100000000u;
        if (!started && wake > window_start_ns) wake = window_start_ns;
        if (!ended && wake > window_end_ns) wake = window_end_ns;
        dispatch(100, wake);
    }
}

static void idle_hold(run_readings *readings) {
    probe_broker(&readings->broker_start);
    readings->own_start = probe_own_cpu();
    uint64_t end = now_ns() + (uint64_t)(opt.duration * 1e9);
    window_start_ns = now_ns();
    window_end_ns = end;
    while (!interrupted && now_ns() < end) {
        heartbeats(now_ns());
        flush_dirty();
        dispatch(100, end);
    }
    probe_broker(&readings->broker_end);
    readings->own_end = probe_own_cpu();
}

/* Idle: closes every ready session at once, as a restart or a network change would, and waits
 * until the broker's CPU stops rising (0.5 s without a tick, 30 s at most); returns the broker
 * CPU seconds that took. */
static double close_storm(uint64_t *closed) {
    process_sample start, sample;
    probe_broker(&start);
    for (int i = 0; i < session_count; i++) {
        if (sessions[i].fd < 0) continue;
        if (sessions[i].phase == PHASE_READY) (*closed)++;
        close(sessions[i].fd);
        sessions[i].fd = -1;
        sessions[i].phase = PHASE_CLOSED;
    }
    double last = start.cpu_seconds;
    for (int polls = 0, quiet = 0; polls < 300 && quiet < 5; polls++) {
        usleep(100000);
        probe_broker(&sample);
        quiet = sample.cpu_seconds > last ? 0 : quiet + 1;
        last = sample.cpu_seconds;
    }
    return last - start.cpu_seconds;
}

/* ---- the report ---- */

static double ms(uint64_t ns) { return (double)ns / 1e6; }

static void report(const run_readings *r) {
    int idle = strcmp(opt.scenario, "idle") == 0, chat = strcmp(opt.scenario, "chat") == 0;
    double window = opt.duration;
    uint64_t delivered = chat ? stats.receipts_in_window : stats.deliveries_in_window;
    double broker_cpu = r->broker_end.cpu_seconds - r->broker_start.cpu_seconds;
    double own_cpu = r->own_end - r->own_start;
    uint64_t expected = stats.published_in_window * (uint64_t)(opt.subscribers > 0 ? opt.subscribers : 1);
    const histogram *h = &stats.latency;
    double per_session_kib = stats.ready > 0 ? (double)(r->broker_end.rss_kib - r->broker_rss_before_kib) / (double)stats.ready : 0;
    FILE *out = stdout;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            if (!opt.json_path) break;
            out = fopen(opt.json_path, "w");
            if (!out) {
                fprintf(stderr, "stompload: cannot write %s: %s\n", opt.json_path, strerror(errno));
                exit(1);
            }
        }
        int json = pass == 1;
#define FIELD(name, format, value) fprintf(out, json ? "  \"%s\": " format ",\n" : "%-28s " format "\n", name, value)
        if (json) fprintf(out, "{\n");
        if (json) fprintf(out, "  \"label\": \"%s\",\n  \"scenario\": \"%s\",\n", opt.label, opt.scenario);
        else fprintf(out, "%-28s %s\n%-28s %s\n", "label", opt.label, "scenario", opt.scenario);
        FIELD("rooms", "%d", opt.rooms);
        FIELD("subscribers_per_room", "%d", idle || chat ? 0 : opt.subscribers);
        FIELD("publishers_per_room", "%d", idle || chat ? 0 : opt.publishers);
        FIELD("sessions", "%d", session_count);
        FIELD("sessions_ready", "%llu", (unsigned long long)stats.ready);
        FIELD("failed_connects", "%llu", (unsigned long long)stats.failed_connects);
        FIELD("setup_seconds", "%.2f", r->setup_seconds);
        FIELD("connect_p50_ms", "%.2f", ms(histogram_quantile(&stats.connect, 0.5)));
        FIELD("connect_p99_ms", "%.2f", ms(histogram_quantile(&stats.connect, 0.99)));
        FIELD("connect_max_ms", "%.2f", ms(stats.connect.max));
        FIELD("seconds", "%.2f", window);
        if (!idle) {
            FIELD("offered_per_s", "%.0f", chat ? 0.0 : opt.rate);
            FIELD("size", "%d", opt.size);
            FIELD("published", "%llu", (unsigned long long)stats.published);
            FIELD("published_in_window", "%llu", (unsigned long long)stats.published_in_window);
            FIELD("unsent", "%llu", (unsigned long long)stats.unsent);
            FIELD("delivered_in_window", "%llu", (unsigned long long)stats.deliveries_in_window);
            FIELD("delivered_per_s", "%.0f", (double)stats.deliveries_in_window / window);
            FIELD("receipts_per_s", "%.0f", (double)stats.receipts_in_window / window);
            FIELD("refusals", "%llu", (unsigned long long)stats.refusals);
            if (!chat && opt.latency_sample == 1)
                FIELD("lost_pct", "%.2f", expected ? 100.0 * (1.0 - (double)stats.stamped_in_window / (double)expected) : 0.0);
            FIELD("latency_samples", "%llu", (unsigned long long)h->total);
            FIELD("latency_p50_ms", "%.3f", ms(histogram_quantile(h, 0.5)));
            FIELD("latency_p90_ms", "%.3f", ms(histogram_quantile(h, 0.9)));
            FIELD("latency_p99_ms", "%.3f", ms(histogram_quantile(h, 0.99)));
            FIELD("latency_p999_ms", "%.3f", ms(histogram_quantile(h, 0.999)));
            FIELD("latency_max_ms", "%.3f", ms(h->max));
        } else {
            FIELD("heartbeats_received", "%llu", (unsigned long long)stats.heartbeats_received);
            FIELD("broker_rss_before_kib", "%ld", r->broker_rss_before_kib);
            FIELD("broker_kib_per_session", "%.2f", per_session_kib);
            FIELD("broker_cpu_us_per_connect", "%.1f", stats.ready ? r->broker_setup_cpu * 1e6 / (double)stats.ready : 0.0);
            FIELD("broker_cpu_us_per_close", "%.1f", r->closed_at_once ? r->broker_close_cpu * 1e6 / (double)r->closed_at_once : 0.0);
        }
        FIELD("errors", "%llu", (unsigned long long)stats.errors);
        for (char *c = first_error; *c; c++)
            if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) *c = ' '; /* keep the JSON string plain */
        if (json) fprintf(out, "  \"first_error\": \"%s\",\n", first_error);
        else fprintf(out, "%-28s %s\n", "first_error", first_error);
        FIELD("closed", "%llu", (unsigned long long)stats.closed);
        FIELD("broker_pid", "%d", opt.broker_pid_count ? opt.broker_pids[0] : 0);
        FIELD("broker_processes", "%d", opt.broker_pid_count);
        FIELD("broker_cpu_pct", "%.1f", 100.0 * broker_cpu / window);
        FIELD("broker_cpu_us_per_delivery", "%.3f", delivered ? broker_cpu * 1e6 / (double)delivered : 0.0);
        FIELD("broker_rss_kib", "%ld", r->broker_end.rss_kib);
        FIELD("broker_rss_anon_kib", "%ld", r->broker_end.rss_anon_kib);
        FIELD("generator_cpu_pct", "%.1f", 100.0 * own_cpu / window);
        FIELD("generator_cpu_us_per_delivery", "%.3f", stats.deliveries_in_window ? own_cpu * 1e6 / (double)stats.deliveries_in_window : 0.0);
        if (json) fprintf(out, "  \"load_average\": %.2f\n}\n", r->load[0]);
        else fprintf(out, "%-28s %.2f\n", "load_average", r->load[0]);
#undef FIELD
        if (json) fclose(out);
    }
}

static void on_signal(int signal) {
    (void)signal;
    interrupted = 1;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "sink") == 0) return sink_main(argc - 1, argv + 1);
    parse_options(argc, argv);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    struct rlimit files;
    getrlimit(RLIMIT_NOFILE, &files);
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    make_sessions();
    dirty_init(session_count);

    run_readings readings = {0};
    process_sample before;
    probe_broker(&before);
    readings.broker_rss_before_kib = before.rss_kib;
    readings.broker_anon_before_kib = before.rss_anon_kib;
    readings.setup_seconds = set_up();
    process_sample set;
    probe_broker(&set);
    readings.broker_setup_cpu = set.cpu_seconds - before.cpu_seconds;
    if (!opt.quiet)
        fprintf(stderr, "stompload: %llu of %d sessions ready in %.2f s\n", (unsigned long long)stats.ready, session_count,
                readings.setup_seconds);
    if (strcmp(opt.scenario, "idle") == 0) {
        idle_hold(&readings);
        readings.broker_close_cpu = close_storm(&readings.closed_at_once);
    } else {
        traffic(&readings);
    }
    probe_loadavg(readings.load);
    report(&readings);
    return stats.ready == 0 ? 1 : 0;
}
