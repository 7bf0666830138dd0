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
# each setup ROOMSxSENDERS, ROUNDS times: stompload's chat scenario, pinned to core LOAD_CORE,
# every sender keeping WINDOW SENDs in flight (1: a phone waits for its receipt), then the
# anchor on the same core and disk committing as many rows per transaction as there are
# senders (the largest group the server could gather); then once the anchor committing one
# row per transaction, and the floor server (`stompload sink --chat`: the sockets, the
# framing and the same SQLite writes with group commit, nothing else) on the same core and
# disk, driven the same way. Prints each round's ratio, then the lowest, median and highest;
# JSON in WORK/results.
#
# Settings, from the environment: SETUPS ("1x50 100x5"), USERS (50), WINDOW (1), DURATION
# (10 s measured), ROUNDS (3), WARMUP (2 s), BROKER_CORE (0), LOAD_CORE (1), CHAT_DURABLE_DIR
# (.build/chat-durable), MEETUPD_BIN (use this binary instead of building).
set -euo pipefail
cd "$(dirname "$0")/.."

setups=${SETUPS:-1x50 100x5}
users=${USERS:-50}
window=${WINDOW:-1}
duration=${DURATION:-10}
rounds=${ROUNDS:-3}
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
    grouped=$((rooms * senders))
    # Each round pairs a meetupd run with the grouped anchor's right after it, so that both see
    # the machine of the same half minute: on this VM a core's speed moves by a tenth or more
    # from one minute to the next, and the ratio of runs minutes apart moved with it.
    for round in $(seq "$rounds"); do
        echo "== round $round: meetupd, $rooms room(s) x $senders senders, $window SEND(s) in flight each"
        taskset -c "$load_core" "$stompload" --url "ws://127.0.0.1:$port/ws" --login meetupd --scenario chat \
            --tokens "$work/tokens-$setup.txt" --window "$window" --duration "$duration" --warmup "$warmup" --drain 10 \
            --broker-pid "$pid" --label "meetupd $setup" --json "$work/results/meetupd-$setup-$round.json" --quiet \
            | grep -E "sessions_ready|receipts_per_s|refusals|latency_p(50|99)_ms|broker_cpu_(pct|us)|load_average" || true
        echo "== round $round: anchor, $rooms room(s) x $senders senders, $grouped row(s) per commit"
        taskset -c "$broker_core" "$anchor" "$work/anchor.sqlite" "$rooms" "$senders" "$duration" "$grouped" \
            | tee "$work/results/anchor-$setup-$grouped-$round.json"
    done
    echo "== anchor: $rooms room(s) x $senders senders, 1 row per commit"
    taskset -c "$broker_core" "$anchor" "$work/anchor.sqlite" "$rooms" "$senders" "$duration" 1 \
        | tee "$work/results/anchor-$setup-1.json"
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

python3 - "$work/results" "$setups" "$window" "$rounds" <<'PY'
import json, os, statistics, sys
results, setups, window, rounds = sys.argv[1], sys.argv[2].split(), sys.argv[3], int(sys.argv[4])
load = lambda name: json.load(open(os.path.join(results, name)))
print("\n| setup | in flight per sender | round | meetupd receipts/s | p50 / p99 ms | meetupd CPU µs/msg "
      "| anchor all senders/commit (rows/s) | **÷ anchor grouped** |")
print("|---|---|---|---|---|---|---|---|")
summary = []
for setup in setups:
    rooms, senders = map(int, setup.split("x"))
    ratios = []
    for round in range(1, rounds + 1):
        m, grouped = load(f"meetupd-{setup}-{round}.json"), load(f"anchor-{setup}-{rooms * senders}-{round}.json")
        ratios.append(m["receipts_per_s"] / grouped["rows_per_s"])
        print(f"| {rooms} × {senders} | {window} | {round} | {m['receipts_per_s']:,.0f} "
              f"| {m['latency_p50_ms']:.1f} / {m['latency_p99_ms']:.1f} | {m['broker_cpu_us_per_delivery']:.0f} "
              f"| {grouped['rows_per_s']:,.0f} | **{ratios[-1]:.2f}×** |")
    summary.append((setup, rooms, senders, ratios))
print("\n| setup | ÷ anchor grouped: lowest / median / highest of the rounds | anchor 1 row/commit (rows/s) "
      "| meetupd ÷ anchor 1/commit (median round) | floor server receipts/s (CPU µs/msg) | floor ÷ anchor grouped (last round) "
      "| refusals | load avg |")
print("|---|---|---|---|---|---|---|---|")
for setup, rooms, senders, ratios in summary:
    single, floor = load(f"anchor-{setup}-1.json"), load(f"floor-{setup}.json")
    last = load(f"anchor-{setup}-{rooms * senders}-{rounds}.json")
    runs = [load(f"meetupd-{setup}-{round}.json") for round in range(1, rounds + 1)]
    median_rate = statistics.median(run["receipts_per_s"] for run in runs)
    print(f"| {rooms} × {senders} | **{min(ratios):.2f}× / {statistics.median(ratios):.2f}× / {max(ratios):.2f}×** "
          f"| {single['rows_per_s']:,.0f} | {median_rate / single['rows_per_s']:.2f}× "
          f"| {floor['receipts_per_s']:,.0f} ({floor['broker_cpu_us_per_delivery']:.0f}) "
          f"| {floor['receipts_per_s'] / last['rows_per_s']:.2f}× "
          f"| {sum(run['refusals'] for run in runs)} | {max(run['load_average'] for run in runs):.1f} |")
PY
