/* chat_anchor: the anchor of the durable-chat benchmark (Benchmarks/chat-durable.sh). Bare
 * libsqlite3 writing the rows meetupd's chat writer writes, on the same disk, with the same
 * settings (WAL, synchronous = FULL, foreign keys on), and nothing else: no network, no JSON,
 * no membership or duplicate checks, no re-read of the stored row.
 *
 *   chat_anchor FILE ROOMS SENDERS SECONDS BATCH
 *
 * A batch is what ChatBatchWriter writes in one transaction: each room's lastSeq read once
 * (its row created on the room's first post), every post inserted with the next seq by the
 * writer's own statement (INSERT ... ON CONFLICT DO NOTHING), then each room's lastSeq and
 * lastMessageAt written back once. The schema is the server's (chatRoom with its kind,
 * chatMessage with its two indexes), with stub meeting and user tables for the foreign keys.
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
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static sqlite3 *db;

static void run(const char *sql) {
    char *error = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) {
        fprintf(stderr, "chat_anchor: %s: %s\n", sql, error);
        exit(1);
    }
}

static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, NULL) != SQLITE_OK) {
        fprintf(stderr, "chat_anchor: %s: %s\n", sql, sqlite3_errmsg(db));
        exit(1);
    }
    return statement;
}

static void step_done(sqlite3_stmt *statement) {
    int rc;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {}
    if (rc != SQLITE_DONE) {
        fprintf(stderr, "chat_anchor: %s\n", sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_reset(statement);
}

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* xorshift64: the ids' random bytes (their distribution is what matters to the indexes, not
 * their secrecy). */
static uint64_t random_state;

static unsigned char random_byte(void) {
    random_state ^= random_state << 13;
    random_state ^= random_state >> 7;
    random_state ^= random_state << 17;
    return (unsigned char)random_state;
}

/* 16 bytes as 22 base64url characters, unpadded, as RandomToken writes ids. */
static void base64url16(const unsigned char *bytes, char *out) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    int o = 0;
    for (int i = 0; i < 15; i += 3) {
        unsigned v = (unsigned)bytes[i] << 16 | (unsigned)bytes[i + 1] << 8 | bytes[i + 2];
        for (int shift = 18; shift >= 0; shift -= 6) out[o++] = alphabet[v >> shift & 63];
    }
    out[o++] = alphabet[bytes[15] >> 2];
    out[o++] = alphabet[(bytes[15] & 3) << 4];
    out[o] = 0;
}

/* A random id (a meeting's, a user's). */
static void random_id(char *out) {
    unsigned char bytes[16];
    for (int i = 0; i < 16; i++) bytes[i] = random_byte();
    base64url16(bytes, out);
}

/* A message id: milliseconds since 1970 in the first 6 bytes, then 10 random ones. */
static void message_id(double now, char *out) {
    unsigned long long milliseconds = (unsigned long long)(now * 1000);
    unsigned char bytes[16];
    for (int i = 0; i < 6; i++) bytes[i] = (unsigned char)(milliseconds >> (8 * (5 - i)));
    for (int i = 6; i < 16; i++) bytes[i] = random_byte();
    base64url16(bytes, out);
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: chat_anchor FILE ROOMS SENDERS SECONDS BATCH\n");
        return 2;
    }
    const char *path = argv[1];
    int rooms = atoi(argv[2]), senders = atoi(argv[3]), batch = atoi(argv[5]);
    double duration = atof(argv[4]);
    if (rooms < 1 || senders < 1 || batch < 1 || duration <= 0) {
        fprintf(stderr, "chat_anchor: ROOMS, SENDERS and BATCH must be >= 1 and SECONDS > 0\n");
        return 2;
    }
    remove(path);
    char wal[4096];
    snprintf(wal, sizeof wal, "%s-wal", path);
    remove(wal);
    snprintf(wal, sizeof wal, "%s-shm", path);
    remove(wal);
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        fprintf(stderr, "chat_anchor: cannot open %s\n", path);
        return 1;
    }
    run("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");
    run("CREATE TABLE user (id TEXT PRIMARY KEY);"
        "CREATE TABLE meeting (id TEXT PRIMARY KEY);"
        "CREATE TABLE chatRoom (id TEXT PRIMARY KEY, meetingId TEXT REFERENCES meeting(id) ON DELETE CASCADE,"
        " lastSeq INTEGER NOT NULL DEFAULT 0, lastMessageAt REAL, kind TEXT NOT NULL DEFAULT 'meeting');"
        "CREATE TABLE chatMessage (roomId TEXT NOT NULL REFERENCES chatRoom(id) ON DELETE CASCADE, seq INTEGER NOT NULL,"
        " id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, senderId TEXT REFERENCES user(id) ON DELETE SET NULL, text TEXT,"
        " attachments TEXT NOT NULL DEFAULT '[]', replyToSeq INTEGER, refersToSeq INTEGER, system TEXT,"
        " clientMessageId TEXT, sentAt REAL NOT NULL, editedAt REAL, deletedAt REAL, PRIMARY KEY (roomId, seq)) WITHOUT ROWID;"
        "CREATE UNIQUE INDEX chatMessage_client ON chatMessage (roomId, senderId, clientMessageId)"
        " WHERE clientMessageId IS NOT NULL;"
        "CREATE INDEX chatMessage_withAttachments ON chatMessage (roomId) WHERE attachments <> '[]';");

    random_state = 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
    int sessions = rooms * senders;
    char (*meeting_ids)[24] = calloc((size_t)rooms, sizeof *meeting_ids);
    char (*room_ids)[32] = calloc((size_t)rooms, sizeof *room_ids);
    char (*user_ids)[24] = calloc((size_t)sessions, sizeof *user_ids);
    long long *sent = calloc((size_t)sessions, sizeof *sent);   /* per sender: its clientMessageIds' count */
    long long *last_seq = calloc((size_t)rooms, sizeof *last_seq);
    char *in_batch = calloc((size_t)rooms, 1);
    sqlite3_stmt *add_meeting = prepare("INSERT INTO meeting (id) VALUES (?)");
    sqlite3_stmt *add_user = prepare("INSERT INTO user (id) VALUES (?)");
    run("BEGIN");
    for (int r = 0; r < rooms; r++) {
        random_id(meeting_ids[r]);
        snprintf(room_ids[r], sizeof room_ids[r], "meeting:%s", meeting_ids[r]);
        sqlite3_bind_text(add_meeting, 1, meeting_ids[r], -1, SQLITE_STATIC);
        step_done(add_meeting);
        for (int s = 0; s < senders; s++) {
            random_id(user_ids[r * senders + s]);
            sqlite3_bind_text(add_user, 1, user_ids[r * senders + s], -1, SQLITE_STATIC);
            step_done(add_user);
        }
    }
    run("COMMIT");

    sqlite3_stmt *read_room = prepare("SELECT lastSeq FROM chatRoom WHERE id = ?");
    sqlite3_stmt *create_room = prepare("INSERT INTO chatRoom (id, meetingId, kind) VALUES (?, ?, 'meeting')");
    sqlite3_stmt *write_room = prepare("UPDATE chatRoom SET lastSeq = ?, lastMessageAt = ? WHERE id = ?");
    sqlite3_stmt *insert = prepare(
        "INSERT INTO chatMessage (roomId, seq, id, type, senderId, text, attachments, replyToSeq, refersToSeq, system,"
        " clientMessageId, sentAt) VALUES (?, ?, ?, 'message', ?, ?, '[]', NULL, NULL, NULL, ?, ?)"
        " ON CONFLICT (roomId, senderId, clientMessageId) WHERE clientMessageId IS NOT NULL DO NOTHING");
    char text[101];
    memset(text, 'x', 100);
    text[100] = 0;
    int pid = (int)getpid();
    double wall_start = seconds(CLOCK_MONOTONIC), cpu_start = seconds(CLOCK_PROCESS_CPUTIME_ID);
    long long rows = 0;
    double now = 0;
    while (seconds(CLOCK_MONOTONIC) - wall_start < duration) {
        run("BEGIN IMMEDIATE");
        memset(in_batch, 0, (size_t)rooms);
        for (int i = 0; i < batch; i++, rows++) {
            int r = (int)(rows % rooms), sender = r * senders + (int)((rows / rooms) % senders);
            if (!in_batch[r]) {
                in_batch[r] = 1;
                sqlite3_bind_text(read_room, 1, room_ids[r], -1, SQLITE_STATIC);
                int found = sqlite3_step(read_room) == SQLITE_ROW;
                last_seq[r] = found ? sqlite3_column_int64(read_room, 0) : 0;
                sqlite3_reset(read_room);
                if (!found) {
                    sqlite3_bind_text(create_room, 1, room_ids[r], -1, SQLITE_STATIC);
                    sqlite3_bind_text(create_room, 2, meeting_ids[r], -1, SQLITE_STATIC);
                    step_done(create_room);
                }
            }
            char id[24], client[64];
            now = seconds(CLOCK_REALTIME);
            message_id(now, id);
            snprintf(client, sizeof client, "load-%d-%d-%lld", pid, sender, ++sent[sender]);
            sqlite3_bind_text(insert, 1, room_ids[r], -1, SQLITE_STATIC);
            sqlite3_bind_int64(insert, 2, ++last_seq[r]);
            sqlite3_bind_text(insert, 3, id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(insert, 4, user_ids[sender], -1, SQLITE_STATIC);
            sqlite3_bind_text(insert, 5, text, -1, SQLITE_STATIC);
            sqlite3_bind_text(insert, 6, client, -1, SQLITE_TRANSIENT);
            sqlite3_bind_double(insert, 7, now);
            step_done(insert);
        }
        for (int r = 0; r < rooms; r++) {
            if (!in_batch[r]) continue;
            sqlite3_bind_int64(write_room, 1, last_seq[r]);
            sqlite3_bind_double(write_room, 2, now);
            sqlite3_bind_text(write_room, 3, room_ids[r], -1, SQLITE_STATIC);
            step_done(write_room);
        }
        run("COMMIT");
    }
    double wall = seconds(CLOCK_MONOTONIC) - wall_start, cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
    printf("{\"rooms\": %d, \"senders\": %d, \"batch\": %d, \"rows\": %lld, \"seconds\": %.3f, \"rows_per_s\": %.1f, "
           "\"cpu_us_per_row\": %.2f}\n", rooms, senders, batch, rows, wall, (double)rows / wall, cpu * 1e6 / (double)rows);
    sqlite3_close(db);
    return 0;
}
