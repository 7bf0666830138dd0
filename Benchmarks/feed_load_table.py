#!/usr/bin/env python3
"""Prints the table of a `Benchmarks/feed-load.sh` run from its JSON results.

Each row is one HTTPLoad run; the ratios divide a feed variant's latency by the hello-world
anchor's at the same rate in the same run. "unanswered" counts requests still waiting when
HTTPLoad gave up (a server slower than the rate); they are in the percentiles with the time
they waited, a lower bound. Exits non-zero if any run had non-2xx answers or connection
errors, since its latencies would not be the feed's.

    python3 Benchmarks/feed_load_table.py .build/feed-load/results
"""
import glob
import json
import os
import sys

TARGET_RATE, TARGET_P99_MS = 1000, 5.0


def main() -> int:
    runs = [json.load(open(path)) for path in glob.glob(os.path.join(sys.argv[1], "*.json"))]
    anchors = {r["targetRate"]: r for r in runs if r["name"] == "hello"}
    order = {"hello": 0, "feed-relevance": 1, "feed-date": 2}
    runs.sort(key=lambda r: (r["targetRate"], order.get(r["name"], 9)))

    def ratio(run: dict, key: str) -> str:
        anchor = anchors.get(run["targetRate"])
        if run["name"] == "hello" or not anchor or anchor[key] == 0:
            return ""
        return f"{run[key] / anchor[key]:.1f}×"

    def slow(run: dict) -> str:
        if "serverHandled" not in run:
            return ""
        return f"{run['serverHandledOver5ms']} ({100 * run['serverHandledOver5ms'] / run['serverHandled']:.2f} %)"

    print(f"\n{runs[0]['connections']} connections, {runs[0]['measuredSeconds']} s measured after "
          f"{runs[0]['warmUpSeconds']} s warm-up; latency in ms from the scheduled send to the last byte\n")
    print("| server | rate/s | achieved/s | p50 | p99 | p99.9 | max | p50 ÷ hello | p99 ÷ hello | p99.9 ÷ hello "
          "| non-2xx + errors | unanswered | server CPU % | server CPU ms/req | handler > 5 ms | server RSS (anon) MiB | HTTPLoad CPU % | HTTPLoad late p99 | load avg |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    failures = 0
    for r in runs:
        failed = r["non2xx"] + r["errors"]
        failures += failed
        print(f"| {r['name']} | {r['targetRate']} | {r['achievedRate']:.0f} | {r['p50']:.2f} | {r['p99']:.2f} "
              f"| {r['p999']:.2f} | {r['max']:.1f} | {ratio(r, 'p50')} | {ratio(r, 'p99')} | {ratio(r, 'p999')} "
              f"| {failed} | {r['unanswered']} | {r['serverCPUPercent']:.0f} | {r['serverCPUMillisPerRequest']:.3f} "
              f"| {slow(r)} | {r['serverRSSMiB']:.0f} ({r.get('serverAnonMiB', float('nan')):.0f}) | {r['cpuPercentOfCore']:.0f} "
              f"| {r.get('wakeUpLateP99', float('nan')):.2f} | {r.get('loadAverage', float('nan')):.1f} |")
    for r in runs:
        if r["name"].startswith("feed") and r["targetRate"] == TARGET_RATE:
            verdict = "met" if r["p99"] <= TARGET_P99_MS and r["achievedRate"] >= 0.99 * TARGET_RATE else "NOT met"
            print(f"\n{r['name']}: p99 {r['p99']:.2f} ms at {TARGET_RATE}/s; target p99 ≤ {TARGET_P99_MS:g} ms: {verdict}")
    if failures:
        print(f"\n{failures} requests failed (non-2xx or connection errors): see `statuses` in {sys.argv[1]}/*.json")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
