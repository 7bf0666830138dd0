#!/usr/bin/env bash
# Chat fan-out latency while the meetings feed is under load, in the same meetupd: HTTP
# requests are served on their connection's event loop, beside that loop's WebSocket sessions,
# so feed work can delay chat frames (docs/benchmarks.md, "Requests on their connection's
# event loop").
#
#     Benchmarks/chat-under-feed.sh
#
# Uses Benchmarks/feed-load.sh's data and relevance requests (seeded by FeedBenchmark when
# missing). For each rate in FEED_RATES, starts `meetupd serve --stomp-sandbox` on that data,
# sends relevance requests with HTTPLoad at that rate (none at 0) while stompload measures
# publish-to-deliver latency of ROOMS rooms x SUBSCRIBERS subscribers at CHAT_RATE deliveries/s,
# then prints one row. Nothing is pinned: both loads share the machine's cores, as in
# production. Settings, from the environment: FEED_RATES ("0 700 1000"), CHAT_RATE (5000),
# ROOMS (10), SUBSCRIBERS (10), DURATION (10 s of chat measured), FEED_LOAD_DIR
# (.build/feed-load), MEETUPD_BIN (a meetupd binary to measure instead of building one).
set -euo pipefail
cd "$(dirname "$0")/.."

feed_rates=${FEED_RATES:-0 700 1000}
chat_rate=${CHAT_RATE:-5000}
rooms=${ROOMS:-10}
subscribers=${SUBSCRIBERS:-10}
duration=${DURATION:-10}
source Benchmarks/bench-lib.sh  # free_port, wait_for_port, release_meetupd, work_directory
work=$(work_directory "${FEED_LOAD_DIR:-}" .build/feed-load)

release_meetupd
for product in FeedBenchmark HTTPLoad; do
    swift build -c release --product "$product" 2>&1 | grep -v "unhandled; explicitly declare" | tail -1
done
bin=$(swift build -c release --show-bin-path)
stompload=$(Benchmarks/StompLoad/build.sh "$work/bin")
"$bin/FeedBenchmark" seed-http "$work/data" "$work"
requests=$work/feed-relevance.txt
# The sandbox trusts CONNECT with any valid token: the first seeded viewer's.
token=$(head -1 "$requests" | sed 's/.*Bearer //')
mkdir -p "$work/chat-under-feed"

pid="" feed=""
stop() { kill $pid $feed 2>/dev/null || true; wait $pid $feed 2>/dev/null || true; }
trap stop EXIT
echo "| feed requests/s | feed achieved/s | feed unanswered + errors | feed p99 ms | chat delivered/s | chat p50 ms | chat p99 ms | chat p99.9 ms | chat max ms |"
echo "|---|---|---|---|---|---|---|---|---|"
for rate in $feed_rates; do
    out=$work/chat-under-feed/$rate
    port=$(free_port)
    "$meetupd_bin" serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" --stomp-sandbox \
        --log-level warning 2>"$out.meetupd.log" &
    pid=$!
    wait_for_port "$port"
    # Warms the feed's index and caches whatever the rate.
    "$bin/HTTPLoad" --port "$port" --requests "$requests" --rate 1000 --duration 3 --warm-up 1 --connections 16 --json >/dev/null
    feed=""
    if [ "$rate" != 0 ]; then
        # Covers stompload's connecting, warm-up (3 s), measurement and drain (2 s).
        "$bin/HTTPLoad" --port "$port" --requests "$requests" --rate "$rate" --duration $((duration + 6)) \
            --warm-up 0 --connections 16 --json >"$out.feed.json" &
        feed=$!
    fi
    "$stompload" --url "ws://127.0.0.1:$port/ws" --login meetupd --passcode "$token" \
        --subscribe-pattern "/topic/sandbox.room{room}" --rooms "$rooms" --subscribers "$subscribers" \
        --publishers 1 --rate "$chat_rate" --size 100 --duration "$duration" --warmup 3 --drain 2 \
        --broker-pid "$pid" --json "$out.chat.json" --quiet >/dev/null
    if [ -n "$feed" ]; then wait "$feed"; feed=""; fi
    stop; pid=""
    python3 - "$rate" "$out" <<'PY'
import json, sys
rate, out = sys.argv[1], sys.argv[2]
chat = json.load(open(out + ".chat.json"))
feed = ("", "", "")
if rate != "0":
    f = json.load(open(out + ".feed.json"))
    feed = (f"{f['achievedRate']:.0f}", f"{f['unanswered'] + f['errors']}", f"{f['p99']:.2f}")
print(f"| {rate} | {' | '.join(feed)} | {chat['delivered_per_s']:.0f} | {chat['latency_p50_ms']:.2f} | "
      f"{chat['latency_p99_ms']:.2f} | {chat['latency_p999_ms']:.2f} | {chat['latency_max_ms']:.2f} |")
PY
done
