#!/usr/bin/env bash
# Runs the Swift test targets, one process per target, each under a watchdog: a target that
# outlives its budget has a hung test. Before killing it, the watchdog names the tests that
# started and never ended and records every thread's stack (gdb), so that a hang seen once in
# CI can be diagnosed from the log alone. One process per target also keeps the servers,
# sockets and threads that run at once within what two cores carry.
#
# The console shows failures and each target's result line; passing tests stay in the full
# logs under .build/test-logs. A summary closes the output, so that the end of a CI log
# (often all that is kept) says which target failed or hung and in which tests.
set -uo pipefail
budget=${SWIFT_TEST_BUDGET_SECONDS:-300}
logs=${SWIFT_TEST_LOG_DIR:-.build/test-logs}
# The build folder the tests were built in (Tests/run-all.sh builds in its own).
scratch=${SWIFT_SCRATCH_PATH:-.build}
mkdir -p "$logs"
summary=$logs/summary.txt
: > "$summary"

# The tests of a log that started and never ended.
unfinished_tests() {
    local log=$1
    comm -23 \
        <(sed -n -e '/^◇ Test case /d' -e 's/^◇ Test \(.*\) started\.$/\1/p' "$log" | sort -u) \
        <(sed -n -e 's/^\(✔\|✘\) Test \(.*\) \(passed\|failed\) after.*/\2/p' "$log" \
            | sed -e 's/ with [0-9]* test cases$//' | sort -u)
}

# Records what a run that is still going after its budget was doing, then ends it.
diagnose_and_stop() {
    local runner=$1 target=$2 log=$3
    {
        echo "$target: HUNG, still running after ${budget} s; these tests started and never ended:"
        unfinished_tests "$log" | sed -e 's/^/    /'
    } | tee -a "$summary"
    for process in $(pgrep -s "$runner" -f 'PackageTests.xctest'); do
        local stacks=$logs/$target.threads-$process.txt
        command -v gdb > /dev/null && timeout 120 gdb -p "$process" -batch -ex 'thread apply all bt 30' 2>/dev/null \
            | grep -E '^(Thread|#)' | grep -v ' in ?? ' | cut -c1-220 > "$stacks"
        echo "::: threads of test process $process in our code (all threads: $stacks)"
        grep -E '^Thread| (MeetCore|MeetServer|Stomp|WebSocket|HTTPLoadCore)[A-Za-z]*\.' "$stacks" \
            | grep -B1 -E '^#' | grep -v '^--$' | head -80
    done
    pkill -KILL -s "$runner"
    wait "$runner" 2>/dev/null
}

status=0
for target in $(cd Tests && ls -d *Tests); do
    echo "::: $target"
    log=$logs/$target.log
    # Line-buffered (stdbuf reaches the test process through the environment): a block-buffered
    # log misses the last lines of a process that never exits, and then names the wrong tests.
    setsid stdbuf -oL -eL swift test --scratch-path "$scratch" --skip-build --parallel --filter "^$target\\." \
        > >(tee "$log" | grep --line-buffered -v -E '^(◇|↳|✔ (Test|Suite) |[0-9-]{10}T[^ ]+ (trace|debug|info|notice) )') 2>&1 &
    runner=$!  # setsid: the runner's id is the session of every process the run starts
    for _ in $(seq "$budget"); do
        kill -0 "$runner" 2>/dev/null || break
        sleep 1
    done
    if kill -0 "$runner" 2>/dev/null; then
        diagnose_and_stop "$runner" "$target" "$log"
        status=124
    elif ! wait "$runner"; then
        {
            echo "$target: FAILED"
            grep -E '^✘ Test .* (recorded an issue|failed after)' "$log" | cut -c1-400 | head -20 | sed -e 's/^/    /'
        } >> "$summary"
        [ "$status" = 0 ] && status=1
    else
        echo "$target: $(grep -E '^✔ Test run with' "$log" | sed -e 's/^✔ Test run with //')" >> "$summary"
    fi
done
echo "::: summary of the Swift tests (full logs in $logs)"
cat "$summary"
exit $status
