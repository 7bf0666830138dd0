#!/usr/bin/env bash
# Instructions per durable chat post (callgrind), beside the anchor's per row: counts that do
# not depend on what else the machine is doing, for changes too small to show in
# Benchmarks/chat-durable.sh's wall-clock figures.
#
#     Benchmarks/chat-instructions.sh
#
# Seeds ROOMSxSENDERS rooms (SETUP, 1x50) through a plain `meetupd serve` as chat-durable.sh
# does, then restarts the server on the same data under `valgrind --tool=callgrind` and runs
# stompload's chat scenario against it (every sender waiting for its RECEIPT). After WARMUP
# seconds (20) the counters are zeroed and the stored posts counted, after MEASURE seconds (20)
# the counters are dumped and the posts counted again: instructions per post are the dump's
# over the posts stored in between, split into the writer's batches
# (`ChatCommitQueue.writeNextBatch`) and the event loops (`SelectableEventLoop.run`). Then
# `chat_anchor` runs under callgrind, as many rows per commit as there are senders, and the
# floor server (`stompload sink --chat`) under the same load and windows as meetupd. Needs
# valgrind and a C compiler. Per function: `callgrind_annotate .build/chat-instructions/meetupd.out.1`.
# Settings, from the environment: SETUP, USERS (50, as chat-durable.sh), WARMUP, MEASURE,
# MEETUPD_BIN (measure this binary).
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/bench-lib.sh  # free_port, wait_for_port, release_meetupd, work_directory

setup=${SETUP:-1x50}
users=${USERS:-50}
warmup=${WARMUP:-20}
measure=${MEASURE:-20}
rooms=${setup%x*} senders=${setup#*x}
work=$(work_directory "" .build/chat-instructions)

release_meetupd
stompload=$(Benchmarks/StompLoad/build.sh "$work/bin")
cc -O2 -shared -fPIC Benchmarks/valgrind/pause-main-thread.c -o "$work/pause-main-thread.so" -lpthread
# valgrind 3.19 cannot read Swift's DWARF 5: a copy without debug info, beside its resources.
rm -rf "$work/meetupd" "$work/data" "$work"/*.out* && mkdir -p "$work/meetupd"
objcopy --strip-debug "$meetupd_bin" "$work/meetupd/meetupd"
cp -r "$(dirname "$meetupd_bin")"/*.resources "$work/meetupd/" 2>/dev/null || true

serve() {  # $1: port; the rest: what to run meetupd under
    local port=$1; shift
    "$@" serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" --chat-burst 1000000 --chat-rate 1000000 \
        --mail-per-client 1000000 --log-level warning >>"$work/meetupd.log" 2>&1 &
    pid=$!
}
trap 'kill ${pid:-} ${floor:-} 2>/dev/null || true' EXIT

port=$(free_port)
serve "$port" "$meetupd_bin"
wait_for_port "$port"
python3 Benchmarks/stomp_seed.py chat "http://127.0.0.1:$port" "$work/data" "$users" "$rooms" "$senders" "$work/tokens.txt"
kill -INT "$pid" && wait "$pid" || true

port=$(free_port)
LD_PRELOAD="$work/pause-main-thread.so" serve "$port" \
    valgrind --tool=callgrind --callgrind-out-file="$work/meetupd.out" "$work/meetupd/meetupd"
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do kill -0 "$pid"; sleep 1; done
"$stompload" --url "ws://127.0.0.1:$port/ws" --login meetupd --scenario chat --tokens "$work/tokens.txt" --window 1 \
    --duration $((measure + 10)) --warmup "$warmup" --drain 10 --connect-timeout 120 --quiet >"$work/stompload.log" &
load=$!
# The posts stored in database $1 (meetupd's by default).
posts() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from chatMessage").fetchone()[0])' "${1:-$work/data/meetupd.sqlite}"; }
sleep "$warmup"
callgrind_control -z "$pid" >/dev/null
before=$(posts)
sleep "$measure"
callgrind_control -d posts "$pid" >/dev/null
after=$(posts)
wait "$load" || true
kill -INT "$pid" && wait "$pid" || true

rm -f "$work"/anchor.sqlite*
valgrind --tool=callgrind --callgrind-out-file="$work/anchor.out" \
    "$work/bin/chat_anchor" "$work/anchor.sqlite" "$rooms" "$senders" 10 $((rooms * senders)) >"$work/anchor.json" 2>/dev/null
rm -f "$work"/anchor.sqlite*

# The floor server, driven and measured the same way. It has no way to stop cleanly: its dump
# is taken while it runs, then it is killed.
rm -f "$work"/floor.*
valgrind --tool=callgrind --callgrind-out-file="$work/floor.out" "$work/bin/stompload" sink --chat "$work/floor.sqlite" \
    >"$work/floor.port" 2>/dev/null &
floor=$!
until [ -s "$work/floor.port" ]; do kill -0 "$floor"; sleep 0.5; done
"$stompload" --url "ws://127.0.0.1:$(head -1 "$work/floor.port")/ws" --login meetupd --scenario chat --tokens "$work/tokens.txt" \
    --window 1 --duration $((measure + 10)) --warmup "$warmup" --drain 10 --connect-timeout 120 --quiet >"$work/floor-load.log" &
load=$!
sleep "$warmup"
callgrind_control -z "$floor" >/dev/null
floor_before=$(posts "$work/floor.sqlite")
sleep "$measure"
callgrind_control -d posts "$floor" >/dev/null
floor_after=$(posts "$work/floor.sqlite")
wait "$load" || true
kill -KILL "$floor" && wait "$floor" 2>/dev/null || true
floor_dump=$(grep -l '^desc: Trigger: dump posts$' "$work"/floor.out.*)

dump=$(grep -l '^desc: Trigger: dump posts$' "$work"/meetupd.out.*)
inclusive() { callgrind_annotate --inclusive=yes --threshold=100 "$dump" | grep -F "$1 [" | head -1 | awk '{gsub(",", "", $1); print $1}'; }
# How often the function named $1 was called in the dump (callgrind's compressed names).
calls() {
    python3 - "$dump" "$1" <<'PY'
import re, sys
names, callee, total = {}, None, 0
for line in open(sys.argv[1]):
    match = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line)
    if match:
        if match.group(2): names[match.group(1)] = match.group(2).strip()
        callee = names.get(match.group(1)) if line.startswith("cfn=") else None
    elif line.startswith("calls=") and callee == sys.argv[2]:
        total += int(line[6:].split()[0])
print(total)
PY
}
python3 - "$((after - before))" "$(grep '^summary:' "$dump" | cut -d' ' -f2)" \
    "$(inclusive '$s8MeetCore15ChatCommitQueueC14writeNextBatch33_BEBE37D30AC70E0D132AAA461372EC78LLyyFy4GRDB8DatabaseCYbcfU_AA0C5WriteO_AA0C7WrittenVTg5')" \
    "$(inclusive '$s8NIOPosix19SelectableEventLoopC3runyyKF')" \
    "$(grep '^summary:' "$work/anchor.out" | cut -d' ' -f2)" "$work/anchor.json" "$setup" \
    "$(calls '$s4GRDB8DatabaseC13inTransactionyyAC0D4KindOSg_AC0D10CompletionOyKXEtKF')" \
    "$((floor_after - floor_before))" "$(grep '^summary:' "$floor_dump" | cut -d' ' -f2)" <<'PY'
import json, sys
posts, total, writer, loops, anchor_total = (int(v or 0) for v in sys.argv[1:6])
rows = json.load(open(sys.argv[6]))["rows"]
batches = int(sys.argv[8] or 0)
floor_posts, floor_total = int(sys.argv[9] or 0), int(sys.argv[10] or 0)
print(f"{sys.argv[7]}: {posts} posts measured in {batches} transactions ({posts / max(batches, 1):.1f} posts each)")
print(f"{'instructions per post':<28} {total / posts:>10,.0f}")
print(f"{'  writer (batches)':<28} {writer / posts:>10,.0f}")
print(f"{'  event loops':<28} {loops / posts:>10,.0f}")
print(f"{'  other threads':<28} {(total - writer - loops) / posts:>10,.0f}")
print(f"{'anchor, per row':<28} {anchor_total / rows:>10,.0f}   ({rows} rows)")
print(f"{'meetupd ÷ anchor':<28} {total / posts / (anchor_total / rows):>10.2f}×")
print(f"{'floor server, per post':<28} {floor_total / max(floor_posts, 1):>10,.0f}   ({floor_posts} posts)")
print(f"{'meetupd ÷ floor':<28} {total / posts / (floor_total / max(floor_posts, 1)):>10.2f}×")
PY
