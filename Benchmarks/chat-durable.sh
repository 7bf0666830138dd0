#!/usr/bin/env bash
# Durable chat throughput (issue 10): messages per second answered with a RECEIPT (sent only
# after the commit with synchronous = FULL) through /app/meetings.{id}.chat, beside the anchor
# measured in the same run on the same disk: bare libsqlite3 writing the same rows with the
# same settings (Benchmarks/StompLoad/chat_anchor.c). docs/benchmarks.md explains the figures.
#
#     Benchmarks/chat-durable.sh
#
# Builds meetupd (release) and the C tools, starts `meetupd serve` pinned to core BROKER_CORE
# with the chat rate limit lifted (it would cap each sender at one message per second),
# signs USERS users in through REST and seeds the rooms (Benchmarks/stomp_seed.py), then for
# each setup ROOMSxSENDERS: stompload's chat scenario, pinned to core LOAD_CORE, every sender
# keeping WINDOW SENDs in flight (1: a phone waits for its receipt); then the anchor on the
# same core and disk, committing one row per transaction and then as many rows per
# transaction as there are senders (the largest group the server could gather); then the
# floor server (`stompload sink --chat`: the sockets, the framing and the same SQLite writes
# with group commit, nothing else) on the same core and disk, driven the same way. Prints the
# table and the ratios; JSON in WORK/results.
#
# Settings, from the environment: SETUPS ("1x50 100x5"), USERS (50), WINDOW (1), DURATION
# (10 s measured), WARMUP (2 s), BROKER_CORE (0), LOAD_CORE (1), CHAT_DURABLE_DIR
# (.build/chat-durable), MEETUPD_BIN (use this binary instead of building).
set -euo pipefail
cd "$(dirname "$0")/.."

setups=${SETUPS:-1x50 100x5}
users=${USERS:-50}
window=${WINDOW:-1}
duration=${DURATION:-10}
warmup=${WARMUP:-2}
broker_core=${BROKER_CORE:-0}
load_core=${LOAD_CORE:-1}
source Benchmarks/bench-lib.sh
work=$(work_directory "${CHAT_DURABLE_DIR:-}" .build/chat-durable)

release_meetupd
stompload=$(Benchmarks/StompLoad/build.sh "$work/bin")
anchor=$work/bin/chat_anchor
rm -rf "$work/results" "$work/data"
mkdir -p "$work/results"

port=$(free_port)
# The seeding registers every user from loopback: past the default mail throttle per client.
taskset -c "$broker_core" "$meetupd_bin" serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" \
    --chat-burst 1000000 --chat-rate 1000000 --mail-per-client 1000000 --log-level warning 2>"$work/meetupd.log" &
pid=$!
trap 'kill $pid ${floor:-} 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT
wait_for_port "$port"

for setup in $setups; do
    rooms=${setup%x*} senders=${setup#*x}
    python3 Benchmarks/stomp_seed.py chat "http://127.0.0.1:$port" "$work/data" "$users" "$rooms" "$senders" "$work/tokens-$setup.txt"
done

for setup in $setups; do
    rooms=${setup%x*} senders=${setup#*x}
    echo "== meetupd: $rooms room(s) x $senders senders, $window SEND(s) in flight each"
    taskset -c "$load_core" "$stompload" --url "ws://127.0.0.1:$port/ws" --login meetupd --scenario chat \
        --tokens "$work/tokens-$setup.txt" --window "$window" --duration "$duration" --warmup "$warmup" --drain 10 \
        --broker-pid "$pid" --label "meetupd $setup" --json "$work/results/meetupd-$setup.json" --quiet \
        | grep -E "sessions_ready|receipts_per_s|refusals|latency_p(50|99)_ms|broker_cpu_(pct|us)|load_average" || true
    for batch in 1 $((rooms * senders)); do
        echo "== anchor: $rooms room(s) x $senders senders, $batch row(s) per commit"
        taskset -c "$broker_core" "$anchor" "$work/anchor.sqlite" "$rooms" "$senders" "$duration" "$batch" \
            | tee "$work/results/anchor-$setup-$batch.json"
    done
    echo "== floor server: $rooms room(s) x $senders senders"
    taskset -c "$broker_core" "$stompload" sink --chat "$work/floor.sqlite" >"$work/floor.port" &
    floor=$!
    until [ -s "$work/floor.port" ]; do sleep 0.1; done
    taskset -c "$load_core" "$stompload" --url "ws://127.0.0.1:$(head -1 "$work/floor.port")/ws" --login meetupd --scenario chat \
        --tokens "$work/tokens-$setup.txt" --window "$window" --duration "$duration" --warmup "$warmup" --drain 10 \
        --broker-pid "$floor" --label "floor $setup" --json "$work/results/floor-$setup.json" --quiet \
        | grep -E "receipts_per_s|broker_cpu_us" || true
    kill "$floor"
    wait "$floor" 2>/dev/null || true
    rm -f "$work"/floor.*
done
rm -f "$work"/anchor.sqlite*

python3 - "$work/results" "$setups" "$window" <<'PY'
import json, os, sys
results, setups, window = sys.argv[1], sys.argv[2].split(), sys.argv[3]
load = lambda name: json.load(open(os.path.join(results, name)))
print("\n| setup | in flight per sender | meetupd receipts/s | p50 / p99 ms | meetupd CPU µs/msg | anchor 1 row/commit (rows/s) "
      "| anchor all senders/commit (rows/s) | ÷ anchor 1/commit | ÷ anchor grouped | floor server receipts/s (CPU µs/msg) "
      "| floor ÷ anchor grouped | refusals | load avg |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for setup in setups:
    rooms, senders = map(int, setup.split("x"))
    m = load(f"meetupd-{setup}.json")
    single, grouped = load(f"anchor-{setup}-1.json"), load(f"anchor-{setup}-{rooms * senders}.json")
    floor = load(f"floor-{setup}.json")
    rate = m["receipts_per_s"]
    print(f"| {rooms} × {senders} | {window} | {rate:,.0f} | {m['latency_p50_ms']:.1f} / {m['latency_p99_ms']:.1f} "
          f"| {m['broker_cpu_us_per_delivery']:.0f} | {single['rows_per_s']:,.0f} | {grouped['rows_per_s']:,.0f} "
          f"| {rate / single['rows_per_s']:.2f}× | {rate / grouped['rows_per_s']:.2f}× "
          f"| {floor['receipts_per_s']:,.0f} ({floor['broker_cpu_us_per_delivery']:.0f}) | {floor['receipts_per_s'] / grouped['rows_per_s']:.2f}× "
          f"| {m['refusals']} | {m['load_average']:.1f} |")
PY
