/* stompload: an open-loop STOMP-over-WebSocket load generator on one epoll thread.
 * See docs/benchmarks.md ("STOMP brokers: stompload"). Shared declarations of its files:
 * stompload.c (options, scenarios, the event loop, the report), session.c (one connection's
 * protocol), sink.c (a trivial broker that proves the generator's ceiling), probe.c (/proc
 * readings), wire.c and histogram.c (pure parts, unit-tested by units.c). */
#ifndef STOMPLOAD_H
#define STOMPLOAD_H

#include <stdint.h>
#include <stdio.h>

#include "histogram.h"
#include "wire.h"

enum role { ROLE_SUBSCRIBER, ROLE_PUBLISHER, ROLE_IDLE, ROLE_CHAT };
enum phase { PHASE_IDLE, PHASE_TCP, PHASE_UPGRADE, PHASE_CONNECT, PHASE_SUBSCRIBE, PHASE_READY, PHASE_CLOSED };

/* One WebSocket connection carrying one STOMP session. Buffers are allocated on first use
 * and grown by doubling, never per message, so an idle session costs only this struct. */
typedef struct session {
    int fd;
    int index;
    enum role role;
    enum phase phase;
    int room;                 /* index into the rooms' destinations */
    int url;                  /* index into opt.urls: the broker (node) it talks to */
    const char *passcode;     /* this session's credentials (chat: the sender's token) */
    int awaited_receipts;     /* SUBSCRIBE receipts still to come before it is ready */
    uint8_t *carry;           /* an incomplete WebSocket frame left from the last read */
    uint32_t carry_size, carry_capacity;
    uint8_t *message;         /* a fragmented WebSocket message being assembled */
    uint32_t message_size, message_capacity;
    uint8_t *out;             /* bytes the socket did not take yet */
    uint32_t out_start, out_end, out_capacity;
    uint8_t dirty;            /* on the list of sessions to flush this pass */
    uint8_t watching_writes;  /* EPOLLOUT registered */
    uint64_t started_ns;      /* when its TCP connect began */
    uint64_t last_sent_ns;    /* for heart-beats */
    /* chat: SENDs awaiting their RECEIPT, by receipt number modulo the window */
    uint32_t in_flight;
    uint64_t next_receipt;
    uint64_t *due_ns;
} session;

/* Everything the command line sets. */
#define MAX_URLS 16
#define MAX_BROKER_PIDS 16

typedef struct {
    /* --url, repeatable: subscribers and idle sessions are spread round-robin over them,
     * publishers and chat senders use the first (several nodes of one service) */
    ws_url urls[MAX_URLS];
    int url_count;
    const char *login, *passcode, *vhost;
    const char *scenario;           /* fanout | fanin | idle | chat */
    const char *label;
    int rooms, subscribers, publishers;
    const char *subscribe_pattern;  /* "{room}" stands for the room's name */
    const char *send_pattern;
    double rate;                    /* offered deliveries per second (fanout, fanin) */
    int size;                       /* message body bytes */
    int chat_body;                  /* fanout: SEND bodies are chat drafts {text, clientMessageId} */
    double duration, warmup, drain, connect_timeout;
    int broker_pids[MAX_BROKER_PIDS]; /* --broker-pid, repeatable: CPU and RSS are summed */
    int broker_pid_count;
    const char *json_path;
    int sources;                    /* 127.0.0.1 ... 127.0.0.N as source addresses */
    int target;                     /* idle: sessions */
    double connect_rate;            /* new connections per second (0: as fast as allowed) */
    int handshakes;                 /* connections being set up at once */
    int heartbeat_ms;               /* idle: heart-beat period asked and sent (0: none) */
    const char *tokens_path;        /* "meetingId<TAB>token": chat, a sender each; fanout, a room each */
    int window;                     /* chat: SENDs in flight per sender */
    int chat_subscribe;             /* chat: senders also subscribe to their room */
    int latency_sample;             /* record the latency of every Nth delivery */
    int quiet;
} options;

/* Counters of a run. */
typedef struct {
    uint64_t deliveries, deliveries_in_window, stamped_in_window;
    uint64_t published, published_in_window, unsent;
    uint64_t receipts, receipts_in_window, refusals;
    uint64_t errors, closed, failed_connects, ready, heartbeats_received;
    histogram latency;   /* publish-to-deliver (or SEND-to-RECEIPT), from the due time */
    histogram connect;   /* TCP connect to ready (CONNECTED, or the SUBSCRIBE receipts) */
} counters;

extern options opt;
extern counters stats;
extern int epoll_fd;
/* The measured window (CLOCK_MONOTONIC ns): deliveries stamped inside it count; 0 until it starts. */
extern uint64_t window_start_ns, window_end_ns;
/* Each room's destinations, "{room}" expanded: SUBSCRIBE and SEND. */
extern char **subscribe_destinations, **send_destinations;
/* Sessions still setting up (opened, not yet ready or closed). */
extern int handshaking;
/* Whether publishers and chat senders are sending. */
extern int sending;

uint64_t now_ns(void);

/* session.c */
extern char first_error[160]; /* the first problem a session met, for the report */
int session_open(session *s);  /* starts the TCP connect; -1 on failure */
void session_io(session *s, uint32_t events, uint64_t now);
uint8_t *session_reserve(session *s, size_t size); /* room for `size` more bytes to send; NULL: over the bound */
void session_send_frame(session *s, const char *stomp, size_t size); /* one STOMP frame as a text message */
void session_flush(session *s);
void dirty_init(int sessions);
void flush_dirty(void);
void session_close(session *s, const char *why);
void chat_top_up(session *s, uint64_t now);  /* fills the chat window with SENDs */
char *pattern_expand(const char *pattern, const char *room);

/* sink.c */
int sink_main(int argc, char **argv);

/* probe.c */
typedef struct {
    double cpu_seconds;  /* utime + stime */
    long rss_kib, rss_anon_kib;
} process_sample;
int probe_process(int pid, process_sample *sample);
double probe_own_cpu(void);
void probe_loadavg(double load[3]);

#endif
