# Shell helpers shared by the benchmark scripts (sourced): feed-load.sh, stomp-compare.sh, chat-durable.sh.

# A free loopback TCP port.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Waits up to 60 s for something to listen on loopback port $1.
wait_for_port() {
    for _ in $(seq 600); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "nothing listens on port $1 after 60 s" >&2
    return 1
}

# Sets meetupd_bin: $MEETUPD_BIN when given (another build to measure), else the release
# product, built first.
release_meetupd() {
    meetupd_bin=${MEETUPD_BIN:-}
    if [ -z "$meetupd_bin" ]; then
        swift build -c release --product meetupd 2>&1 | grep -v "unhandled; explicitly declare\|CMakeLists.txt" | tail -1
        meetupd_bin="$(swift build -c release --show-bin-path)/meetupd"
    fi
}

# An absolute work directory: $1 if set, else $2, created.
work_directory() {
    mkdir -p "${1:-$2}" && (cd "${1:-$2}" && pwd)
}
