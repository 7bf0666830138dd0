#!/usr/bin/env bash
# One meetupd node against three nodes on one data directory relayed through RabbitMQ
# (issue 16; docs/benchmarks.md, "One node vs three"):
#
#     Benchmarks/nodes-compare.sh
#
# Builds meetupd (release) and stompload, seeds one data directory (one user organizing ROOMS
# meetings, Benchmarks/stomp_seed.py), then measures each layout in turn, every meetupd
# process and RabbitMQ pinned to core BROKER_CORE and the generators to core LOAD_CORE, so
# that the service has one core in every layout:
#   one          one node, no relay: the anchor of every ratio;
#   three        three nodes with --relay, the subscribers spread over them round-robin,
#                the publisher on the first;
#   three-local  the same three nodes, every subscriber on the publisher's node (what the
#                relay costs when nothing has to cross).
# Fan-out goes through real chat rooms (/app/meetings.{id}.chat -> /topic/meetings.{id}.chat:
# every post is committed, sequenced and, with the relay, published to RabbitMQ once), at each
# offered rate in RATES_<SCENARIO>; "broker" CPU is the utime + stime of every meetupd process
# and RabbitMQ summed (stompload --broker-pid, repeated). Idle sessions: IDLE_ONE against the
# one node (more than its file limit, `ulimit -n`, lets it hold) and IDLE_PER_NODE against each
# of the three, from several stompload processes (each holds at most GENERATOR_SESSIONS: the
# generator has the same file limit), held HOLD seconds; the nodes' RSS is sampled every second.
# Sessions cost connect-time CPU, not fan-out, so for them the service may use every core.
# Prints the tables and the ratios; JSON in WORK/results. Nothing is left running, even on
# failure or Ctrl-C.
#
# Settings, from the environment: LAYOUTS ("one three three-local"), SCENARIOS ("1x1000 100x10
# idle"), RATES_1x1000 ("10000 30000" offered deliveries/s), RATES_100x10 ("500 2000"), SIZE
# (100 text bytes), DURATION (10 s), WARMUP (3 s), DRAIN (10 s), IDLE_ONE (21000), IDLE_PER_NODE
# (15000), GENERATOR_SESSIONS (8000), HOLD (20 s), IDLE_CONNECT_RATE (400 new sessions/s over all
# generators: on a busy machine a faster ramp outruns the nodes, which then close sessions
# whose CONNECT or heart-beats they did not read in time), BROKER_CORE (0),
# LOAD_CORE (1), NODES_COMPARE_DIR (.build/nodes-compare), MEETUPD_BIN (a meetupd binary to use
# instead of building the release product).
set -euo pipefail
cd "$(dirname "$0")/.."

layouts=${LAYOUTS:-one three three-local}
scenarios=${SCENARIOS:-1x1000 100x10 idle}
size=${SIZE:-100}
duration=${DURATION:-10}
warmup=${WARMUP:-3}
drain=${DRAIN:-10}
idle_one=${IDLE_ONE:-21000}
idle_per_node=${IDLE_PER_NODE:-15000}
generator_sessions=${GENERATOR_SESSIONS:-8000}
hold=${HOLD:-20}
idle_connect_rate=${IDLE_CONNECT_RATE:-400}
broker_core=${BROKER_CORE:-0}
load_core=${LOAD_CORE:-1}
source Benchmarks/bench-lib.sh
work=$(work_directory "${NODES_COMPARE_DIR:-}" .build/nodes-compare)

release_meetupd
stompload=$(Benchmarks/StompLoad/build.sh "$work/bin")
rm -rf "$work/results" "$work/data"
mkdir -p "$work/results"

node_pids=() node_ports=() node_urls=() rabbit_runner="" rabbit_pid="" relay_url=""
stop_nodes() {
    local pid
    for pid in "${node_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${node_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    node_pids=() node_ports=() node_urls=()
}
stop_rabbitmq() {
    if [ -n "$rabbit_runner" ]; then
        kill "$rabbit_runner" 2>/dev/null || true
        wait "$rabbit_runner" 2>/dev/null || true
    fi
    rabbit_runner="" rabbit_pid="" relay_url=""
}
cleanup() { stop_nodes; stop_rabbitmq; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# $1 nodes on the one data directory, each `meetupd serve` on its own port, with --relay when
# RabbitMQ runs. The chat's per-user rate limit is lifted (one user posts every message) and
# so is the mail throttle (the seeding registers from loopback).
start_nodes() {
    local count=$1 k port relay=()
    if [ -n "$relay_url" ]; then relay=(--relay "$relay_url"); fi
    for ((k = 0; k < count; k++)); do
        port=$(free_port)
        taskset -c "$broker_core" "$meetupd_bin" serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" \
            --chat-burst 1000000 --chat-rate 1000000 --mail-per-client 1000000 --log-level warning "${relay[@]}" \
            2>>"$work/node-$k.log" &
        node_pids+=("$!")
        node_ports+=("$port")
        node_urls+=("ws://127.0.0.1:$port/ws")
        wait_for_port "$port"
    done
}

# A private RabbitMQ with the STOMP adapter, started the way the relay tests start it
# (Tests/Interop/rabbitmq_support.py: every file in a temporary directory, free loopback
# ports, its own port mapper), pinned to the service's core; stopped and removed on SIGTERM.
start_rabbitmq() {
    local line=$work/rabbitmq.line
    rm -f "$line"
    taskset -c "$broker_core" python3 -u - "$line" >"$work/rabbitmq.log" 2>&1 <<'PY' &
import os, signal, sys
sys.path.insert(0, "Tests/Interop")
from rabbitmq_support import RabbitMQ
node = RabbitMQ()
signal.signal(signal.SIGTERM, lambda *_: (node.remove(), sys.exit(0)))
try:
    node.start()
    with open(node.env["RABBITMQ_PID_FILE"]) as f:
        pid = f.read().strip()
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(f"{node.url} {pid}\n")
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    signal.pause()
finally:
    node.remove()
PY
    rabbit_runner=$!
    for _ in $(seq 1500); do
        [ -s "$line" ] && break
        kill -0 "$rabbit_runner" 2>/dev/null || { cat "$work/rabbitmq.log" >&2; exit 1; }
        sleep 0.1
    done
    [ -s "$line" ] || { echo "RabbitMQ did not start in 150 s" >&2; exit 1; }
    read -r relay_url rabbit_pid <"$line"
}

# The readings (utime + stime, RSS) of every process of the service: its nodes and RabbitMQ.
service_pids() { echo "${node_pids[@]}" $rabbit_pid; }
broker_pid_flags() { local pid; for pid in $(service_pids); do printf -- '--broker-pid %s ' "$pid"; done; }
service_ticks() { # utime + stime of each service process, in clock ticks, in service_pids order
    local pid
    for pid in $(service_pids); do awk '{ printf "%d ", $14 + $15 }' "/proc/$pid/stat"; done
}
nodes_rss_kib() { # the nodes' VmRSS summed
    local pid total=0 rss
    for pid in "${node_pids[@]}"; do
        rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
        total=$((total + ${rss:-0}))
    done
    echo "$total"
}

# Fan-out: ROOMS rooms x SUBSCRIBERS through the chat, one publisher per room on the first node.
run_fanout() {
    local layout=$1 scenario=$2 rooms=${2%x*} subscribers=${2#*x} rate out urls=() url ticks
    local rates_name="RATES_$scenario" defaults
    if [ "$scenario" = 1x1000 ]; then defaults="10000 30000"; else defaults="500 2000"; fi
    if [ "$layout" = three ]; then urls=("${node_urls[@]}"); else urls=("${node_urls[0]}"); fi
    head -n "$rooms" "$work/tokens.txt" >"$work/tokens-$rooms.txt"
    for rate in ${!rates_name:-$defaults}; do
        out="$work/results/$layout-$scenario-$rate.json"
        ticks=$(service_ticks)
        echo "== $layout: $rooms room(s) x $subscribers subscribers, $rate deliveries/s offered"
        # shellcheck disable=SC2046
        taskset -c "$load_core" "$stompload" $(for url in "${urls[@]}"; do printf -- '--url %s ' "$url"; done) \
            --login meetupd --tokens "$work/tokens-$rooms.txt" --chat-body \
            --subscribe-pattern "/topic/meetings.{room}.chat" --send-pattern "/app/meetings.{room}.chat" \
            --subscribers "$subscribers" --publishers 1 --rate "$rate" --size "$size" --duration "$duration" \
            --warmup "$warmup" --drain "$drain" $(broker_pid_flags) --label "$layout $scenario" --json "$out" --quiet \
            | grep -E "sessions_ready|delivered_per_s|latency_p(50|99)_ms|lost_pct|broker_cpu_(pct|us)|load_average" || true
        [ -s "$out" ] || { echo "no result for $layout $scenario $rate" >&2; break; }
        # Each process's CPU ticks over the whole run (set-up included), before and after:
        # the nodes (the publisher's first), then RabbitMQ when it runs.
        printf '%s\n%s\n' "$ticks" "$(service_ticks)" >"$work/results/cpu-$layout-$scenario-$rate.txt"
    done
}

pin_service() { local pid; for pid in $(service_pids); do taskset -a -p -c "$1" "$pid" >/dev/null; done; }
generators_alive() { local pid; for pid in "$@"; do kill -0 "$pid" 2>/dev/null && return 0; done; return 1; }

# Idle sessions: TARGET per node, split over generators of at most GENERATOR_SESSIONS each,
# all at once; the nodes' RSS is sampled every second while they run (its peak counts).
run_idle() {
    local layout=$1 per_node=$2 k g generators share rate timeout before peak rss pid pids=()
    generators=$(((per_node + generator_sessions - 1) / generator_sessions))
    share=$(((per_node + generators - 1) / generators))
    rate=$(python3 -c "print($idle_connect_rate / ($generators * ${#node_urls[@]}))")
    timeout=$((per_node * ${#node_urls[@]} / idle_connect_rate + 60))
    echo "== $layout: $per_node idle sessions per node on ${#node_urls[@]} node(s), $generators generator(s) each"
    pin_service "0-$(($(nproc) - 1))"
    before=$(nodes_rss_kib)
    for ((k = 0; k < ${#node_urls[@]}; k++)); do
        for ((g = 0; g < generators; g++)); do
            taskset -c "$load_core" "$stompload" --url "${node_urls[$k]}" --login meetupd --passcode "$token" \
                --scenario idle --target "$share" --sources 16 --handshakes 64 --connect-rate "$rate" \
                --heartbeat-ms 10000 --duration "$hold" --connect-timeout "$timeout" \
                --label "$layout idle node $k" --json "$work/results/$layout-idle-$k-$g.json" --quiet >/dev/null 2>&1 &
            pids+=("$!")
        done
    done
    peak=$before
    while generators_alive "${pids[@]}"; do
        rss=$(nodes_rss_kib)
        if [ "$rss" -gt "$peak" ]; then peak=$rss; fi
        sleep 1
    done
    for pid in "${pids[@]}"; do wait "$pid" || true; done
    pin_service "$broker_core"
    printf '{"layout": "%s", "nodes": %d, "asked": %d, "generators": %d, "rss_before_kib": %d, "rss_peak_kib": %d, "load_average": %s}\n' \
        "$layout" "${#node_urls[@]}" $((share * ${#pids[@]})) "${#pids[@]}" "$before" "$peak" "$(cut -d' ' -f1 /proc/loadavg)" \
        >"$work/results/$layout-idle.json"
}

run_layout() {
    local layout=$1 scenario
    for scenario in $scenarios; do
        if [ "$scenario" = idle ]; then
            if [ "$layout" = three-local ]; then continue; fi
            if [ "$layout" = one ]; then run_idle "$layout" "$idle_one"; else run_idle "$layout" "$idle_per_node"; fi
        else
            run_fanout "$layout" "$scenario"
        fi
    done
}

# The seed: one user organizing 100 meetings (a chat room each); "meetingId<TAB>token" lines.
start_nodes 1
python3 Benchmarks/stomp_seed.py chat "http://127.0.0.1:${node_ports[0]}" "$work/data" 1 100 1 "$work/tokens.txt"
token=$(head -n 1 "$work/tokens.txt" | cut -f2)
if [[ " $layouts " == *" one "* ]]; then run_layout one; fi
stop_nodes

if [[ " $layouts " == *" three"* ]]; then
    start_rabbitmq
    start_nodes 3
    for layout in three three-local; do
        if [[ " $layouts " == *" $layout "* ]]; then run_layout "$layout"; fi
    done
    stop_nodes
    stop_rabbitmq
fi

python3 Benchmarks/nodes_compare_report.py "$work/results"
