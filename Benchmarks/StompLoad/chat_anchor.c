/* chat_anchor: the anchor of the durable-chat benchmark (Benchmarks/chat-durable.sh). Bare
 * libsqlite3 writing the rows a chat post writes, on the same disk, with the same settings as
 * meetupd's chat writer (WAL, synchronous = FULL, foreign keys on), and nothing else: no
 * network, no JSON, no membership or duplicate checks, no re-read of the stored row.
 *
 *   chat_anchor FILE ROOMS SENDERS SECONDS BATCH
 *
 * Each post is what ChatBatchWriter does to the tables: the room's row upserted, its lastSeq
 * bumped (UPDATE ... RETURNING), the message inserted (same schema as migration 401, with
 * stub meeting and user tables for its foreign keys). Posts go round-robin over ROOMS x
 * SENDERS and are committed BATCH at a time (1: a transaction per message, fsync each;
 * ROOMS x SENDERS: the largest group a server can gather when every sender waits for its
 * receipt). Runs SECONDS and prints one JSON line: rows, rows per second, CPU us per row. */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
        " lastSeq INTEGER NOT NULL DEFAULT 0, lastMessageAt REAL);"
        "CREATE TABLE chatMessage (roomId TEXT NOT NULL REFERENCES chatRoom(id) ON DELETE CASCADE, seq INTEGER NOT NULL,"
        " id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, senderId TEXT REFERENCES user(id) ON DELETE SET NULL, text TEXT,"
        " attachments TEXT NOT NULL DEFAULT '[]', replyToSeq INTEGER, refersToSeq INTEGER, system TEXT,"
        " clientMessageId TEXT, sentAt REAL NOT NULL, editedAt REAL, deletedAt REAL, PRIMARY KEY (roomId, seq)) WITHOUT ROWID;"
        "CREATE UNIQUE INDEX chatMessage_client ON chatMessage (roomId, senderId, clientMessageId)"
        " WHERE clientMessageId IS NOT NULL;");
    run("BEGIN");
    for (int r = 0; r < rooms; r++) {
        char sql[256];
        snprintf(sql, sizeof sql, "INSERT INTO meeting VALUES ('meeting%d')", r);
        run(sql);
        for (int s = 0; s < senders; s++) {
            snprintf(sql, sizeof sql, "INSERT INTO user VALUES ('user%d-%d')", r, s);
            run(sql);
        }
    }
    run("COMMIT");

    sqlite3_stmt *room = prepare("INSERT OR IGNORE INTO chatRoom (id, meetingId) VALUES (?, ?)");
    sqlite3_stmt *bump = prepare("UPDATE chatRoom SET lastSeq = lastSeq + 1, lastMessageAt = ? WHERE id = ? RETURNING lastSeq");
    sqlite3_stmt *insert = prepare(
        "INSERT INTO chatMessage (roomId, seq, id, type, senderId, text, attachments, replyToSeq, clientMessageId, sentAt)"
        " VALUES (?, ?, ?, 'message', ?, ?, '[]', NULL, ?, ?)");
    const char *text = "see you at the station at seven, the one by the river: bring the tickets and a warm coat!!";
    double wall_start = seconds(CLOCK_MONOTONIC), cpu_start = seconds(CLOCK_PROCESS_CPUTIME_ID);
    long long rows = 0;
    while (seconds(CLOCK_MONOTONIC) - wall_start < duration) {
        run("BEGIN IMMEDIATE");
        for (int i = 0; i < batch; i++, rows++) {
            int r = (int)(rows % rooms), s = (int)((rows / rooms) % senders);
            char room_id[64], meeting_id[64], sender[64], id[64], client[64];
            snprintf(room_id, sizeof room_id, "meeting:meeting%d", r);
            snprintf(meeting_id, sizeof meeting_id, "meeting%d", r);
            snprintf(sender, sizeof sender, "user%d-%d", r, s);
            snprintf(id, sizeof id, "m%022lld", rows); /* RandomToken-sized */
            snprintf(client, sizeof client, "client-%lld", rows);
            double now = (double)time(NULL);
            sqlite3_bind_text(room, 1, room_id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(room, 2, meeting_id, -1, SQLITE_TRANSIENT);
            step_done(room);
            sqlite3_bind_double(bump, 1, now);
            sqlite3_bind_text(bump, 2, room_id, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(bump) != SQLITE_ROW) {
                fprintf(stderr, "chat_anchor: %s\n", sqlite3_errmsg(db));
                return 1;
            }
            sqlite3_int64 seq = sqlite3_column_int64(bump, 0);
            step_done(bump);
            sqlite3_bind_text(insert, 1, room_id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(insert, 2, seq);
            sqlite3_bind_text(insert, 3, id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(insert, 4, sender, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(insert, 5, text, -1, SQLITE_STATIC);
            sqlite3_bind_text(insert, 6, client, -1, SQLITE_TRANSIENT);
            sqlite3_bind_double(insert, 7, now);
            step_done(insert);
        }
        run("COMMIT");
    }
    double wall = seconds(CLOCK_MONOTONIC) - wall_start, cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
    printf("{\"rooms\": %d, \"senders\": %d, \"batch\": %d, \"rows\": %lld, \"seconds\": %.3f, \"rows_per_s\": %.1f, "
           "\"cpu_us_per_row\": %.2f}\n", rooms, senders, batch, rows, wall, (double)rows / wall, cpu * 1e6 / (double)rows);
    sqlite3_close(db);
    return 0;
}
