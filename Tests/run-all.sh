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

swift build --build-tests
# A hung test fails the run within minutes and leaves its stacks in the log.
bash Tests/swift-tests.sh
# A hung interop test fails alone after 10 minutes instead of holding the whole run.
MEETUPD_BIN="$(swift build --show-bin-path)/meetupd" "$venv/bin/python" -m pytest -q --timeout=600 Tests/Interop
