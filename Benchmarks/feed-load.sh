#!/usr/bin/env bash
# The meetings feed over HTTP at a fixed rate, beside the anchor measured in the same run:
# Hummingbird's hello world, the floor any Hummingbird route stands on (docs/benchmarks.md).
#
#     Benchmarks/feed-load.sh
#
# Builds the release products, seeds 100,000 meetings and 10,000 users once into
# .build/feed-load/data (reused by later runs; delete it to reseed), starts `meetupd serve`
# on that data directory and HelloWorld, each on a free loopback port, drives each with
# HTTPLoad (open loop) at every rate in RATES, prints the table, and stops both servers.
# Settings, from the environment: RATES ("1000 2000 4000"), DURATION (30 measured seconds),
# WARMUP (5 s), CONNECTIONS (16), FEED_LOAD_DIR (.build/feed-load), MEETUPD_BIN (a meetupd
# binary to measure instead of building one, e.g. a copy kept from before a change).
set -euo pipefail
cd "$(dirname "$0")/.."

rates=${RATES:-1000 2000 4000}
duration=${DURATION:-30}
warmup=${WARMUP:-5}
connections=${CONNECTIONS:-16}
work=${FEED_LOAD_DIR:-.build/feed-load}

source Benchmarks/bench-lib.sh  # free_port, wait_for_port, release_meetupd

release_meetupd
for product in FeedBenchmark HTTPLoad HelloWorld; do
    swift build -c release --product "$product" 2>&1 | grep -v "unhandled; explicitly declare" | tail -1
done
bin=$(swift build -c release --show-bin-path)

mkdir -p "$work/results"
rm -f "$work"/results/*.json
"$bin/FeedBenchmark" seed-http "$work/data" "$work"
printf 'GET /hello\n' >"$work/hello.txt"

# The servers start with nothing in their own memory (the relevance run is the feed's first
# traffic), but with their files in the OS cache, as on a machine that has been serving: this
# VM's host pages out file pages nobody read for a minute (DAMON), and a run after a pause
# timed disk reads of the database on the event loops instead (docs/benchmarks.md).
cat "$meetupd_bin" "$bin/HelloWorld" "$bin/HTTPLoad" "$work"/data/meetupd.sqlite* >/dev/null

feed_port=$(free_port)
"$meetupd_bin" serve --host 127.0.0.1 --port "$feed_port" --data-dir "$work/data" --log-level warning 2>"$work/meetupd.log" &
feed_pid=$!
hello_port=$(free_port)
"$bin/HelloWorld" "$hello_port" >"$work/hello.log" 2>&1 &
hello_pid=$!
stop_servers() {
    kill "$feed_pid" "$hello_pid" 2>/dev/null || true
    wait "$feed_pid" "$hello_pid" 2>/dev/null || true
}
trap stop_servers EXIT
wait_for_port "$feed_port"
wait_for_port "$hello_port"

# The seeded tokens must be accepted, or every figure below would time a 401.
python3 - "$feed_port" "$work/feed-relevance.txt" <<'PY'
import sys, urllib.request
port, path = sys.argv[1], sys.argv[2]
method_target, header = open(path).readline().rstrip("\n").split("\t")[:2]
name, value = header.split(": ", 1)
request = urllib.request.Request(f"http://127.0.0.1:{port}{method_target.split(' ')[1]}", headers={name: value})
with urllib.request.urlopen(request) as response:
    assert response.status == 200, response.status
PY

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# Resident memory, and the anonymous part of it (without the SQLite file's mapped pages).
rss_kib() { awk '/^VmRSS:/ { rss = $2 } /^RssAnon:/ { anon = $2 } END { print rss "," anon }' "/proc/$1/status"; }

# How many feed requests meetupd on port $1 has answered so far, and how many of them took its
# handler more than 5 ms (the request metrics' histogram): the part of the tail the server
# makes itself, apart from the time a request waits for a core before its handler starts.
# "0 0" for a server without those metrics (hello world).
feed_handled() {
    python3 - "$1" <<'PY'
import re, sys, urllib.error, urllib.request
try:
    text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics").read().decode()
except urllib.error.HTTPError:
    text = ""
buckets = dict(re.findall(r'^http_request_duration_seconds_bucket\{method="GET",route="/api/v1/meetings",'
                          r'status="200",le="([^"]+)"\} (\d+)', text, re.M))
total = int(buckets.get("+Inf", 0))
print(total, total - int(buckets.get("0.005", 0)))
PY
}
# One HTTPLoad run; the server's CPU, RSS and slow handlers go into the same JSON file as
# HTTPLoad's figures.
measure() { # name pid port request-file rate
    local name=$1 pid=$2 port=$3 requests=$4 rate=$5
    local out="$work/results/$name-$rate.json"
    local cpu_before started handled_before
    handled_before=$(feed_handled "$port")
    cpu_before=$(cpu_ticks "$pid")
    started=$(date +%s.%N)
    "$bin/HTTPLoad" --port "$port" --requests "$requests" --rate "$rate" --duration "$duration" \
        --warm-up "$warmup" --connections "$connections" --json >"$out.load"
    python3 - "$out" "$(cpu_ticks "$pid")" "$cpu_before" "$started" "$(date +%s.%N)" "$(rss_kib "$pid")" "$name" \
        "$handled_before" "$(feed_handled "$port")" <<'PY'
import json, os, sys
out, cpu_after, cpu_before, started, ended, rss, name, handled_before, handled_after = sys.argv[1:]
report = json.load(open(out + ".load"))
seconds = (int(cpu_after) - int(cpu_before)) / os.sysconf("SC_CLK_TCK")
rss_kib, anon_kib = map(int, rss.split(","))
report.update(name=name, serverCPUPercent=100 * seconds / (float(ended) - float(started)),
              serverCPUMillisPerRequest=1000 * seconds / max(1, report["responses"]),
              serverRSSMiB=rss_kib / 1024, serverAnonMiB=anon_kib / 1024, loadAverage=os.getloadavg()[0])
(answered_before, slow_before), (answered_after, slow_after) = (map(int, h.split()) for h in (handled_before, handled_after))
if answered_after > answered_before:  # meetupd: warm-up included, as in the CPU per request
    report.update(serverHandled=answered_after - answered_before, serverHandledOver5ms=slow_after - slow_before)
json.dump(report, open(out, "w"))
os.remove(out + ".load")
print(f"  {name:<14} {report['targetRate']:>5}/s: achieved {report['achievedRate']:.0f}/s, "
      f"p50 {report['p50']:.2f} ms, p99 {report['p99']:.2f} ms, non-2xx {report['non2xx']}")
PY
}

# A variant that could not keep up at one rate is not run at the higher ones.
saturated() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["achievedRate"] < 0.9 * r["targetRate"] else 1)' "$1"; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A skip=()
for rate in $rates; do
    measure hello "$hello_pid" "$hello_port" "$work/hello.txt" "$rate"
    for sort in relevance date; do
        if [ -n "${skip[$sort]:-}" ]; then continue; fi
        measure "feed-$sort" "$feed_pid" "$feed_port" "$work/feed-$sort.txt" "$rate"
        if saturated "$work/results/feed-$sort-$rate.json"; then skip[$sort]=1; fi
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 Benchmarks/feed_load_table.py "$work/results"
