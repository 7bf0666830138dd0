#!/usr/bin/env bash
# Builds the STOMP load generator with the system's C compiler (no SwiftPM involved).
#     Benchmarks/StompLoad/build.sh [OUT_DIR]   -> OUT_DIR/stompload (default .build/stompload)
# and OUT_DIR/chat_anchor (the durable-chat benchmark's bare-SQLite anchor; libsqlite3-dev).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../.build/stompload}
mkdir -p "$out"
gcc -O2 -g -Wall -Wextra -std=gnu11 -o "$out/stompload" \
    "$here"/stompload.c "$here"/session.c "$here"/sink.c "$here"/probe.c "$here"/wire.c "$here"/histogram.c "$here"/chat_store.c -lm -lsqlite3 -lpthread
gcc -O2 -g -Wall -Wextra -std=gnu11 -o "$out/chat_anchor" "$here"/chat_anchor.c "$here"/chat_store.c -lsqlite3
echo "$out/stompload"
