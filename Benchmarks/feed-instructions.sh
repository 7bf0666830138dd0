#!/usr/bin/env bash
# Instructions per request (callgrind) of the meetings feed, beside Hummingbird's hello world
# (the anchor): counts that do not depend on what else the machine is doing.
#
#     Benchmarks/feed-instructions.sh
#
# Uses the data and request files of Benchmarks/feed-load.sh (.build/feed-load: 100,000
# meetings, 10,000 users; seeded by FeedBenchmark when missing). Each server runs under
# `valgrind --tool=callgrind`. Once it answers, for each request file: the counters are zeroed,
# COUNT requests are sent one after another on one keep-alive connection, and the counters are
# dumped ("busy"); then zeroed again for as long with no requests (timers, the change log's
# poll) and dumped ("idle"). A request's instructions are (busy - idle) / COUNT. Settings, from
# the environment: COUNT (200), WARM (0: requests sent first, from the start of the first
# request file, and not measured; the measured ones follow them in each file, so that the
# tokens, viewers and page meetings met before come from memory, as for most requests of a
# `feed-load.sh` run; the once-a-minute write of the tokens' `lastUsedAt` may then fall in a
# measured window, see `AccountService.noteUse` in the dumps), FEED_LOAD_DIR
# (.build/feed-load), MEETUPD_BIN (a meetupd binary to measure instead of building one).
# Needs valgrind and a C compiler (Debian `valgrind`, `gcc`). valgrind 3.19 cannot read
# Swift's DWARF 5, so each binary runs as a copy without debug info (function symbols stay),
# with Benchmarks/valgrind/pause-main-thread.c preloaded (see there). Under callgrind the feed
# index takes minutes to build; the script waits. Per function: `callgrind_annotate` on the
# dump whose "Trigger" line names the window (`grep -l 'dump feed-date.busy'
# .build/feed-instructions/meetupd.out.*`).
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/bench-lib.sh  # free_port, release_meetupd, work_directory

count=${COUNT:-200}
warm=${WARM:-0}
data=$(work_directory "${FEED_LOAD_DIR:-}" .build/feed-load)
work=$(work_directory "" .build/feed-instructions)

release_meetupd
for product in FeedBenchmark HelloWorld; do
    swift build -c release --product "$product" 2>&1 | grep -v "unhandled; explicitly declare" | tail -1
done
bin=$(swift build -c release --show-bin-path)
"$bin/FeedBenchmark" seed-http "$data/data" "$data"
printf 'GET /hello\n' >"$data/hello.txt"
cc -O2 -shared -fPIC Benchmarks/valgrind/pause-main-thread.c -o "$work/pause-main-thread.so" -lpthread

# A copy of binary $1 without debug info, named $3, beside its resource bundles, in directory $2.
stripped_copy() {
    rm -rf "$2" && mkdir -p "$2"
    objcopy --strip-debug "$1" "$2/$3"
    cp -r "$(dirname "$1")"/*.resources "$2/" 2>/dev/null || true
}

# Sends $3 requests of file $2 from its line $4 + 1 (0 by default; the file repeated if
# shorter) to port $1 on one connection; fails unless every answer is 200.
send() {
    python3 - "$@" <<'PY'
import http.client, sys
port, path, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
skip = int(sys.argv[4]) if len(sys.argv) > 4 else 0
lines = open(path).read().splitlines()
lines = (lines * -(-(skip + count) // len(lines)))[skip:skip + count]  # repeated as often as needed
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
for line in lines:
    fields = line.split("\t")
    method, target = fields[0].split(" ", 1)
    connection.request(method, target, headers=dict(h.split(": ", 1) for h in fields[1:]))
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        sys.exit(f"{target}: {response.status}")
PY
}

# The instructions of the dump of $1 whose trigger is $2.
dumped() { grep -l "^desc: Trigger: dump $2\$" "$1".* | xargs grep -h "^summary:" | cut -d' ' -f2; }

results="$work/results.txt"
: >"$results"
# Runs `$3...` under callgrind as $1 on port $2 and measures each request file in $requests.
measure() {
    local name=$1 port=$2 pid file label started seconds busy idle; shift 2
    rm -f "$work/$name.out"*
    LD_PRELOAD="$work/pause-main-thread.so" valgrind --tool=callgrind --callgrind-out-file="$work/$name.out" \
        "$@" >"$work/$name.log" 2>&1 &
    pid=$!
    local deadline=$((SECONDS + 1800))
    until send "$port" "${requests%% *}" 1 2>/dev/null; do
        if [ $SECONDS -ge $deadline ] || ! kill -0 "$pid" 2>/dev/null; then
            echo "$name did not answer (see $work/$name.log)" >&2
            kill "$pid" 2>/dev/null || true
            return 1
        fi
        sleep 2
    done
    if [ "$warm" -gt 1 ]; then send "$port" "${requests%% *}" $((warm - 1)) 1; fi
    for file in $requests; do
        label=$(basename "$file" .txt)
        callgrind_control -z "$pid" >/dev/null 2>&1
        started=$SECONDS
        send "$port" "$file" "$count" "$warm"
        seconds=$((SECONDS - started + 1))
        callgrind_control -d "$label.busy" "$pid" >/dev/null 2>&1
        callgrind_control -z "$pid" >/dev/null 2>&1
        sleep "$seconds"
        callgrind_control -d "$label.idle" "$pid" >/dev/null 2>&1
        busy=$(dumped "$work/$name.out" "$label.busy")
        idle=$(dumped "$work/$name.out" "$label.idle")
        echo "$label $(((busy - idle) / count))" | tee -a "$results"
    done
    kill -INT "$pid"
    wait "$pid" || true
}

stripped_copy "$bin/HelloWorld" "$work/hello" HelloWorld
stripped_copy "$meetupd_bin" "$work/meetupd" meetupd
port=$(free_port)
requests="$data/hello.txt" measure hello "$port" "$work/hello/HelloWorld" "$port"
port=$(free_port)
requests="$data/feed-relevance.txt $data/feed-date.txt" measure meetupd "$port" \
    "$work/meetupd/meetupd" serve --host 127.0.0.1 --port "$port" --data-dir "$data/data" --log-level warning

python3 - "$results" <<'PY'
import sys
counts = {label: int(value) for label, value in (line.split() for line in open(sys.argv[1]))}
hello = counts["hello"]
print(f"{'request':<15} {'instructions':>13} {'÷ hello world':>14}")
for label, value in counts.items():
    print(f"{label:<15} {value:>13,} {value / hello:>13.1f}×")
PY
