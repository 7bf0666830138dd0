#!/usr/bin/env bash
# meetupd's STOMP broker beside RabbitMQ's Web-STOMP (Debian's rabbitmq-server), driven by the
# same C load generator (Benchmarks/StompLoad) in one run (docs/performance.md):
#
#     Benchmarks/stomp-compare.sh
#
# Builds meetupd (release) and stompload, then for each broker in turn: starts it pinned to
# core BROKER_CORE (meetupd `serve --stomp-sandbox` on a fresh data directory, one user signed
# in through REST; RabbitMQ as a private node on loopback ports with rabbitmq_web_stomp, its
# own Erlang port mapper, files under the work directory), runs every scenario at every
# offered rate with the generator pinned to core LOAD_CORE, and stops it. A broker that
# delivers less than SKIP_BELOW of an offered rate is not run at higher ones. Then prints the table
# and the ratios, and writes WORK/summary.json and WORK/latency.png (matplotlib, installed
# into .build/bench-venv on first use). Nothing is left running, even on failure or Ctrl-C.
#
# Settings, from the environment:
#   BROKERS ("meetupd rabbitmq")   SCENARIOS ("1x1000 100x10 idle"; ROOMSxSUBSCRIBERS or idle)
#   RATES ("10000 50000 100000 300000" offered deliveries/s)   SIZE (100 body bytes)
#   DURATION (10 s measured)  WARMUP (3 s)  DRAIN (5 s)  IDLE_TARGET (19000 sessions)
#   IDLE_SOURCES (8 loopback addresses)  BROKER_CORE (0)  LOAD_CORE (1)
#   SKIP_BELOW (0.8; 0 runs every rate: on a machine busy with other work a broker may get a
#   fraction of its core, and broker CPU per delivery is still worth having at each rate)
#   STOMP_COMPARE_DIR (.build/stomp-compare)  MEETUPD_BIN (a meetupd binary to use instead of
#   building the release product, e.g. to compare two builds)
set -euo pipefail
cd "$(dirname "$0")/.."

brokers=${BROKERS:-meetupd rabbitmq}
scenarios=${SCENARIOS:-1x1000 100x10 idle}
rates=${RATES:-10000 50000 100000 300000}
size=${SIZE:-100}
duration=${DURATION:-10}
warmup=${WARMUP:-3}
drain=${DRAIN:-5}
idle_target=${IDLE_TARGET:-19000}
idle_sources=${IDLE_SOURCES:-8}
broker_core=${BROKER_CORE:-0}
load_core=${LOAD_CORE:-1}
skip_below=${SKIP_BELOW:-0.8}
source Benchmarks/bench-lib.sh
work=$(work_directory "${STOMP_COMPARE_DIR:-}" .build/stomp-compare)

if [[ " $brokers " == *" meetupd "* ]]; then release_meetupd; fi
stompload=$(Benchmarks/StompLoad/build.sh "$work/bin")
rm -rf "$work/results"
mkdir -p "$work/results"

broker_pid=""
stop_broker=:
cleanup() { "$stop_broker"; stop_broker=:; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- meetupd ----
start_meetupd() {
    local port data=$work/meetupd-data
    rm -rf "$data"
    port=$(free_port)
    taskset -c "$broker_core" "$meetupd_bin" serve --host 127.0.0.1 --port "$port" --data-dir "$data" \
        --stomp-sandbox --log-level warning 2>"$work/meetupd.log" &
    broker_pid=$!
    stop_broker=stop_meetupd
    wait_for_port "$port"
    url="ws://127.0.0.1:$port/ws"
    login=meetupd
    passcode=$(python3 Benchmarks/stomp_seed.py user "http://127.0.0.1:$port" "$data")
    pattern="/topic/sandbox.room{room}"
}
stop_meetupd() {
    kill "$broker_pid" 2>/dev/null || true
    wait "$broker_pid" 2>/dev/null || true
}

# ---- RabbitMQ: a private node; its environment keeps every file under $work/rabbitmq ----
rabbitmq_env() {
    local base=$work/rabbitmq
    export HOME=$base RABBITMQ_NODENAME=stompload@localhost RABBITMQ_CONFIG_FILE=$base/rabbitmq.conf
    export RABBITMQ_ENABLED_PLUGINS_FILE=$base/enabled_plugins RABBITMQ_MNESIA_BASE=$base/mnesia
    export RABBITMQ_LOG_BASE=$base/log RABBITMQ_PID_FILE=$base/pid ERL_EPMD_PORT=$rabbit_epmd_port
    export RABBITMQ_DIST_PORT=$rabbit_dist_port RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="+S 1:1"
}
start_rabbitmq() {
    if ! command -v /usr/lib/rabbitmq/bin/rabbitmq-server >/dev/null; then
        apt-get install -y -qq rabbitmq-server >/dev/null
    fi
    local base=$work/rabbitmq amqp_port web_port
    rm -rf "$base"
    mkdir -p "$base"
    amqp_port=$(free_port) web_port=$(free_port) rabbit_epmd_port=$(free_port) rabbit_dist_port=$(free_port)
    cat >"$base/rabbitmq.conf" <<EOF
listeners.tcp.default = 127.0.0.1:$amqp_port
web_stomp.tcp.port = $web_port
web_stomp.tcp.ip = 127.0.0.1
loopback_users = none
EOF
    echo '[rabbitmq_web_stomp].' >"$base/enabled_plugins"
    (rabbitmq_env; exec taskset -c "$broker_core" /usr/lib/rabbitmq/bin/rabbitmq-server >"$work/rabbitmq.log" 2>&1) &
    stop_broker=stop_rabbitmq
    (rabbitmq_env; /usr/lib/rabbitmq/bin/rabbitmqctl wait "$base/pid" --timeout 180 >/dev/null)
    broker_pid=$(cat "$base/pid")
    wait_for_port "$web_port"
    url="ws://127.0.0.1:$web_port/ws"
    login=guest passcode=guest
    pattern="/topic/room.{room}"
}
stop_rabbitmq() {
    (rabbitmq_env; /usr/lib/rabbitmq/bin/rabbitmqctl stop "$work/rabbitmq/pid" >/dev/null 2>&1) || kill "$broker_pid" 2>/dev/null || true
    (rabbitmq_env; epmd -kill >/dev/null 2>&1) || true
}

# ---- the runs ----
delivered_below() { # json fraction rate: whether delivered/s < fraction x rate
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["delivered_per_s"] < float(sys.argv[2]) * float(sys.argv[3]) else 1)' "$@"
}

run_broker() {
    local name=$1 scenario rooms subscribers rate out
    for scenario in $scenarios; do
        if [ "$scenario" = idle ]; then
            out="$work/results/$name-idle-$idle_target.json"
            echo "== $name: $idle_target idle sessions"
            taskset -c "$load_core" "$stompload" --url "$url" --login "$login" --passcode "$passcode" \
                --scenario idle --target "$idle_target" --sources "$idle_sources" --handshakes 512 \
                --heartbeat-ms 10000 --duration 15 --connect-timeout 180 --broker-pid "$broker_pid" \
                --label "$name idle" --json "$out" --quiet | grep -E "ready|failed|setup|connect_p99|per_session|per_connect|per_close|errors|first_error" || true
            continue
        fi
        rooms=${scenario%x*} subscribers=${scenario#*x}
        for rate in $rates; do
            out="$work/results/$name-$scenario-$rate.json"
            echo "== $name: $rooms room(s) x $subscribers subscribers, $rate deliveries/s offered"
            taskset -c "$load_core" "$stompload" --url "$url" --login "$login" --passcode "$passcode" \
                --subscribe-pattern "$pattern" --rooms "$rooms" --subscribers "$subscribers" --publishers 1 \
                --rate "$rate" --size "$size" --duration "$duration" --warmup "$warmup" --drain "$drain" \
                --broker-pid "$broker_pid" --label "$name $scenario" --json "$out" --quiet \
                | grep -E "delivered_per_s|latency_p99_ms|broker_cpu_(pct|us)|generator_cpu_pct|load_average" || true
            [ -s "$out" ] || { echo "no result for $name $scenario $rate" >&2; break; }
            if delivered_below "$out" "$skip_below" "$rate"; then
                echo "   $name delivered under $skip_below of $rate/s: higher rates skipped"
                break
            fi
        done
    done
}

for broker in $brokers; do
    "start_$broker"
    run_broker "$broker"
    "$stop_broker"
    stop_broker=:
done

# The report, and the plot where matplotlib installs.
venv=.build/bench-venv
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/python" -c 'import matplotlib' 2>/dev/null ||
    "$venv/bin/pip" install --quiet --disable-pip-version-check matplotlib ||
    echo "matplotlib did not install: no plot" >&2
"$venv/bin/python" Benchmarks/stomp_compare_report.py "$work/results" "$work/summary.json" "$work/latency.png"
