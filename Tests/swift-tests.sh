#!/usr/bin/env bash
# Runs the Swift test targets, one process per target, each under a watchdog: a target that
# outlives its budget has a hung test. Before killing it, the watchdog names the tests that
# started and never ended and prints every thread's stack (gdb), so that a hang seen once in
# CI can be diagnosed from the log alone. One process per target also keeps the servers,
# sockets and threads that run at once within what two cores carry.
set -uo pipefail
budget=${SWIFT_TEST_BUDGET_SECONDS:-300}
log=$(mktemp)
trap 'rm -f "$log" "$log".*' EXIT

# Prints what a run that is still going after its budget was doing, then ends it.
diagnose_and_stop() {
    local runner=$1
    echo "::: swift test still running after ${budget} s; these tests started and never ended:"
    sed -n -e '/^◇ Test case /d' -e 's/^◇ Test \(.*\) started\.$/\1/p' "$log" | sort > "$log.started"
    sed -n -e 's/^\(✔\|✘\) Test \(.*\) \(passed\|failed\) after.*/\2/p' "$log" \
        | sed -e 's/ with [0-9]* test cases$//' | sort -u > "$log.ended"
    comm -23 "$log.started" "$log.ended"
    for process in $(pgrep -s "$runner" -f 'PackageTests.xctest'); do
        echo "::: threads of test process $process"
        command -v gdb > /dev/null && timeout 120 gdb -p "$process" -batch -ex 'thread apply all bt 30' 2>/dev/null \
            | grep -E '^(Thread|#)' | grep -v ' in ?? ' | cut -c1-220
    done
    pkill -KILL -s "$runner"
    wait "$runner" 2>/dev/null
}

status=0
for target in $(cd Tests && ls -d *Tests); do
    echo "::: $target"
    setsid swift test --skip-build --parallel --filter "^$target\\." > >(tee "$log") 2>&1 &
    runner=$!  # setsid: the runner's id is the session of every process the run starts
    for _ in $(seq "$budget"); do
        kill -0 "$runner" 2>/dev/null || break
        sleep 1
    done
    if kill -0 "$runner" 2>/dev/null; then
        diagnose_and_stop "$runner"
        status=124
    else
        wait "$runner" || status=1
    fi
done
exit $status
