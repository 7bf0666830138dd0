/* See chat_store.h. */
#define _GNU_SOURCE
#include "chat_store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    char id[64];          /* "meeting:" and the meeting's id */
    long long last_seq;
    double last_message_at;
} batch_room;

struct chat_store {
    sqlite3 *db;
    sqlite3_stmt *add_user, *add_meeting, *read_room, *create_room, *write_room, *insert;
    batch_room *rooms;    /* the rooms the open transaction posted to */
    int room_count, room_capacity;
};

static void fail(sqlite3 *db, const char *what) {
    fprintf(stderr, "chat_store: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void run(sqlite3 *db, const char *sql) {
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) fail(db, sql);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, NULL) != SQLITE_OK) fail(db, sql);
    return statement;
}

static void step_done(sqlite3 *db, sqlite3_stmt *statement) {
    int rc;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {}
    if (rc != SQLITE_DONE) fail(db, sqlite3_sql(statement));
    sqlite3_reset(statement);
}

chat_store *chat_store_open(const char *path) {
    char sidecar[4096];
    remove(path);
    snprintf(sidecar, sizeof sidecar, "%s-wal", path);
    remove(sidecar);
    snprintf(sidecar, sizeof sidecar, "%s-shm", path);
    remove(sidecar);
    chat_store *store = calloc(1, sizeof *store);
    if (sqlite3_open(path, &store->db) != SQLITE_OK) fail(store->db, path);
    sqlite3 *db = store->db;
    /* The chat writer's connection (AppDatabase.openPool): its page cache and memory map too. */
    run(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;"
            " PRAGMA cache_size = -32768; PRAGMA mmap_size = 1073741824;");
    run(db, "CREATE TABLE user (id TEXT PRIMARY KEY);"
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
    store->add_user = prepare(db, "INSERT OR IGNORE INTO user (id) VALUES (?)");
    store->add_meeting = prepare(db, "INSERT OR IGNORE INTO meeting (id) VALUES (?)");
    store->read_room = prepare(db, "SELECT lastSeq FROM chatRoom WHERE id = ?");
    store->create_room = prepare(db, "INSERT INTO chatRoom (id, meetingId, kind) VALUES (?, ?, 'meeting')");
    store->write_room = prepare(db, "UPDATE chatRoom SET lastSeq = ?, lastMessageAt = ? WHERE id = ?");
    store->insert = prepare(db,
        "INSERT INTO chatMessage (roomId, seq, id, type, senderId, text, attachments, replyToSeq, refersToSeq, system,"
        " clientMessageId, sentAt) VALUES (?, ?, ?, 'message', ?, ?, '[]', NULL, NULL, NULL, ?, ?)"
        " ON CONFLICT (roomId, senderId, clientMessageId) WHERE clientMessageId IS NOT NULL DO NOTHING");
    return store;
}

void chat_store_close(chat_store *store) {
    sqlite3_stmt *statements[] = { store->add_user, store->add_meeting, store->read_room, store->create_room,
                                   store->write_room, store->insert };
    for (size_t i = 0; i < sizeof statements / sizeof *statements; i++) sqlite3_finalize(statements[i]);
    sqlite3_close(store->db);
    free(store->rooms);
    free(store);
}

static void add_row(chat_store *store, sqlite3_stmt *statement, const char *id) {
    sqlite3_bind_text(statement, 1, id, -1, SQLITE_TRANSIENT);
    step_done(store->db, statement);
}

void chat_store_add_user(chat_store *store, const char *id) { add_row(store, store->add_user, id); }

void chat_store_begin(chat_store *store) {
    run(store->db, "BEGIN IMMEDIATE");
    store->room_count = 0;
}

/* The open transaction's entry for the room of `meeting_id`, read (or created) on first use.
 * Found by the meeting's id, so that a post to a room already in the batch formats nothing. */
static batch_room *batch_room_of(chat_store *store, const char *meeting_id) {
    for (int i = store->room_count - 1; i >= 0; i--)
        if (strcmp(store->rooms[i].id + sizeof "meeting:" - 1, meeting_id) == 0) return &store->rooms[i];
    char id[64];
    snprintf(id, sizeof id, "meeting:%s", meeting_id);
    if (store->room_count == store->room_capacity) {
        store->room_capacity = store->room_capacity ? store->room_capacity * 2 : 16;
        store->rooms = realloc(store->rooms, (size_t)store->room_capacity * sizeof *store->rooms);
    }
    batch_room *room = &store->rooms[store->room_count++];
    memcpy(room->id, id, sizeof id);
    room->last_message_at = 0;  /* no post kept yet: nothing to write back */
    sqlite3_bind_text(store->read_room, 1, room->id, -1, SQLITE_STATIC);
    int found = sqlite3_step(store->read_room) == SQLITE_ROW;
    room->last_seq = found ? sqlite3_column_int64(store->read_room, 0) : 0;
    sqlite3_reset(store->read_room);
    if (!found) {
        add_row(store, store->add_meeting, meeting_id);
        sqlite3_bind_text(store->create_room, 1, room->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(store->create_room, 2, meeting_id, -1, SQLITE_TRANSIENT);
        step_done(store->db, store->create_room);
    }
    return room;
}

void chat_store_post(chat_store *store, const char *meeting_id, const char *sender_id, const char *client_message_id,
                     const char *text, size_t text_size, double now) {
    batch_room *room = batch_room_of(store, meeting_id);
    char id[23];
    chat_message_id(now, id);
    sqlite3_stmt *insert = store->insert;
    sqlite3_bind_text(insert, 1, room->id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(insert, 2, room->last_seq + 1);
    sqlite3_bind_text(insert, 3, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 4, sender_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 5, text, (int)text_size, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 6, client_message_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(insert, 7, now);
    step_done(store->db, insert);
    if (sqlite3_changes(store->db) > 0) {  /* a repeat of a clientMessageId takes no seq */
        room->last_seq++;
        room->last_message_at = now;
    }
}

void chat_store_commit(chat_store *store) {
    for (int i = 0; i < store->room_count; i++) {
        batch_room *room = &store->rooms[i];
        if (room->last_message_at == 0) continue;
        sqlite3_bind_int64(store->write_room, 1, room->last_seq);
        sqlite3_bind_double(store->write_room, 2, room->last_message_at);
        sqlite3_bind_text(store->write_room, 3, room->id, -1, SQLITE_STATIC);
        step_done(store->db, store->write_room);
    }
    run(store->db, "COMMIT");
}

/* xorshift64: the ids' random bytes (their spread is what matters to the indexes, not their
 * secrecy). */
static uint64_t random_state;

static unsigned char random_byte(void) {
    if (!random_state) random_state = 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
    random_state ^= random_state << 13;
    random_state ^= random_state >> 7;
    random_state ^= random_state << 17;
    return (unsigned char)random_state;
}

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

void chat_random_id(char *out) {
    unsigned char bytes[16];
    for (int i = 0; i < 16; i++) bytes[i] = random_byte();
    base64url16(bytes, out);
}

void chat_message_id(double now, char *out) {
    unsigned long long milliseconds = (unsigned long long)(now * 1000);
    unsigned char bytes[16];
    for (int i = 0; i < 6; i++) bytes[i] = (unsigned char)(milliseconds >> (8 * (5 - i)));
    for (int i = 6; i < 16; i++) bytes[i] = random_byte();
    base64url16(bytes, out);
}

double chat_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
