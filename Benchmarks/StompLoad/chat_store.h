/* What meetupd's chat writer stores, written by bare libsqlite3: the durable-chat anchor
 * (chat_anchor.c) and the floor server (`stompload sink --chat`) share it, so both write the
 * same rows with the same statements. */
#ifndef CHAT_STORE_H
#define CHAT_STORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct chat_store chat_store;

/* Creates the file at `path` afresh with the server's schema and its writer's settings (WAL,
 * synchronous = FULL, foreign keys on, a 32 MiB page cache, reads mapped); exits with a
 * message on failure. */
chat_store *chat_store_open(const char *path);
void chat_store_close(chat_store *store);

/* A user's stub row, for the foreign key of the messages it sends. */
void chat_store_add_user(chat_store *store, const char *id);

/* A transaction as ChatBatchWriter writes one: each room's lastSeq read on its first post
 * (the room and its meeting's stub row created if it has none yet), every post inserted with its room's next seq by the
 * writer's statement, each room's lastSeq and lastMessageAt written back at the commit. */
void chat_store_begin(chat_store *store);
void chat_store_post(chat_store *store, const char *meeting_id, const char *sender_id, const char *client_message_id,
                     const char *text, size_t text_size, double now);
void chat_store_commit(chat_store *store);

/* Ids as meetupd makes them (RandomToken): 16 bytes as 22 base64url characters. A random
 * one, and a message's, whose first 6 bytes are `now` in milliseconds. `out` holds 23 bytes. */
void chat_random_id(char *out);
void chat_message_id(double now, char *out);

/* The wall clock in seconds, as sentAt stores it. */
double chat_now(void);

#endif
