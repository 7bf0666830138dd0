#!/usr/bin/env bash
# Runs every test: the Swift test targets, then the interop tests that drive the
# real server with clients nobody here wrote (stomp.py, websocket-client, websockets).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests need (Tests/system-packages.txt), installed only when missing.
missing=""
for package in $(sed -e 's/#.*//' Tests/system-packages.txt); do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing="$missing $package"
done
if [ -n "$missing" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
fi

venv=.build/venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r Tests/Interop/requirements.txt

# A debug build of our code with the C code it uses optimized: every sign-up and login runs
# BoringSSL's scrypt, 0.9 s a hash unoptimized against 0.12 s optimized, and the interop tests
# sign in hundreds of users (their run took 16.5 minutes instead of 10). In a build folder of
# its own, since other flags rebuild everything: `swift run meetupd serve` keeps `.build`.
export SWIFT_SCRATCH_PATH=.build-tests
swift build --scratch-path "$SWIFT_SCRATCH_PATH" --build-tests -Xcc -O2
logs=.build/test-logs
mkdir -p "$logs"
status=0
# A hung test fails the run within minutes and leaves its stacks in the log.
bash Tests/swift-tests.sh || status=$?
# A hung interop test fails alone after 10 minutes instead of holding the whole run.
MEETUPD_BIN="$(swift build --scratch-path "$SWIFT_SCRATCH_PATH" --show-bin-path)/meetupd" "$venv/bin/python" -m pytest -q -rfE --timeout=600 Tests/Interop \
    | tee "$logs/interop.log" || status=$?

# Both stages always run; what failed is said last, on both streams, since a CI log is often
# cut to its end and may keep only one of them.
summary=$(
    echo "::: summary of every test (full logs in $logs)"
    cat "$logs/summary.txt" 2>/dev/null || echo "Swift tests: no summary (the runner itself failed)"
    echo "Interop: $(tail -n 1 "$logs/interop.log")"
    grep -E '^(FAILED|ERROR) ' "$logs/interop.log" | cut -c1-300 | sed -e 's/^/    /' || true
)
echo "$summary"
echo "$summary" >&2
exit $status
