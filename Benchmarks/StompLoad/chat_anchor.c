/* chat_anchor: the anchor of the durable-chat benchmark (Benchmarks/chat-durable.sh). Bare
 * libsqlite3 writing the rows meetupd's chat writer writes, on the same disk, with the same
 * settings and statements (chat_store.c), and nothing else: no network, no JSON, no
 * membership or duplicate checks, no re-read of the stored row.
 *
 *   chat_anchor FILE ROOMS SENDERS SECONDS BATCH
 *
 * The rows have the server's shape as chat-durable.sh makes it: 22-character random meeting
 * and user ids, message ids of 6 bytes of milliseconds and 10 random bytes in base64url
 * (RandomToken.id(at:)), clientMessageIds "load-PID-SESSION-N" with a count per sender (what
 * stompload sends), 100-character texts, sentAt in fractional seconds.
 *
 * Posts go round-robin over ROOMS x SENDERS and are committed BATCH at a time (1: a
 * transaction per message, fsync each; ROOMS x SENDERS: the largest group a server can gather
 * when every sender waits for its receipt). Runs SECONDS and prints one JSON line: rows, rows
 * per second, CPU us per row. */
#define _GNU_SOURCE
#include "chat_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: chat_anchor FILE ROOMS SENDERS SECONDS BATCH\n");
        return 2;
    }
    int rooms = atoi(argv[2]), senders = atoi(argv[3]), batch = atoi(argv[5]);
    double duration = atof(argv[4]);
    if (rooms < 1 || senders < 1 || batch < 1 || duration <= 0) {
        fprintf(stderr, "chat_anchor: ROOMS, SENDERS and BATCH must be >= 1 and SECONDS > 0\n");
        return 2;
    }
    chat_store *store = chat_store_open(argv[1]);
    int sessions = rooms * senders;
    char (*meeting_ids)[23] = calloc((size_t)rooms, sizeof *meeting_ids);
    char (*user_ids)[23] = calloc((size_t)sessions, sizeof *user_ids);
    long long *sent = calloc((size_t)sessions, sizeof *sent);  /* per sender: its clientMessageIds' count */
    chat_store_begin(store);
    for (int r = 0; r < rooms; r++) chat_random_id(meeting_ids[r]);
    for (int s = 0; s < sessions; s++) {
        chat_random_id(user_ids[s]);
        chat_store_add_user(store, user_ids[s]);
    }
    chat_store_commit(store);

    char text[101];
    memset(text, 'x', 100);
    text[100] = 0;
    int pid = (int)getpid();
    double wall_start = seconds(CLOCK_MONOTONIC), cpu_start = seconds(CLOCK_PROCESS_CPUTIME_ID);
    long long rows = 0;
    while (seconds(CLOCK_MONOTONIC) - wall_start < duration) {
        chat_store_begin(store);
        for (int i = 0; i < batch; i++, rows++) {
            int r = (int)(rows % rooms), sender = r * senders + (int)((rows / rooms) % senders);
            char client[64];
            snprintf(client, sizeof client, "load-%d-%d-%lld", pid, sender, ++sent[sender]);
            chat_store_post(store, meeting_ids[r], user_ids[sender], client, text, 100, chat_now());
        }
        chat_store_commit(store);
    }
    double wall = seconds(CLOCK_MONOTONIC) - wall_start, cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
    printf("{\"rooms\": %d, \"senders\": %d, \"batch\": %d, \"rows\": %lld, \"seconds\": %.3f, \"rows_per_s\": %.1f, "
           "\"cpu_us_per_row\": %.2f}\n", rooms, senders, batch, rows, wall, (double)rows / wall, cpu * 1e6 / (double)rows);
    chat_store_close(store);
    return 0;
}
