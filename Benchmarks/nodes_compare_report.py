"""The tables of Benchmarks/nodes-compare.sh (one node against three relayed through RabbitMQ),
as Markdown for docs/benchmarks.md, from the JSON files of one run; standard library only.

    python3 Benchmarks/nodes_compare_report.py RESULTS_DIR

Ratios are against the one-node run of the same scenario and rate (its anchor)."""
import glob
import json
import os
import sys

LAYOUTS = {"one": "1 node", "three": "3 nodes, subscribers spread", "three-local": "3 nodes, subscribers on the publisher's node"}


def load(path: str) -> dict:
    with open(path) as f:
        return json.load(f)


def cpu_shares(results: str, layout: str, scenario: str, rate: int) -> str:
    """The service's CPU over the whole run split as publisher's node / other nodes / RabbitMQ."""
    path = os.path.join(results, f"cpu-{layout}-{scenario}-{rate}.txt")
    if not os.path.exists(path):
        return "—"
    with open(path) as f:
        before, after = ([int(t) for t in line.split()] for line in f.read().splitlines()[:2])
    used = [a - b for a, b in zip(after, before)]
    total = sum(used) or 1
    nodes = 1 if layout == "one" else 3
    shares = [used[0], sum(used[1:nodes])] + ([used[nodes]] if len(used) > nodes else [])
    return " / ".join(f"{100 * share / total:.0f}" for share in (shares if nodes > 1 else shares[:1]))


def fanout_table(results: str) -> None:
    runs = {}
    for path in glob.glob(os.path.join(results, "*-*x*-*.json")):
        layout, scenario, rate = os.path.basename(path)[:-5].rsplit("-", 2)
        runs[(layout, scenario, int(rate))] = load(path)
    if not runs:
        return
    print("| layout | rooms × subscribers | offered/s | delivered/s | p50 ms | p99 ms | lost % | service CPU % of a core "
          "| **service CPU µs/delivery** | ÷ 1 node | CPU ms per post | CPU % publisher's node / other nodes / RabbitMQ "
          "| load avg |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    order = sorted(runs, key=lambda k: (k[1] != "1x1000", k[1], k[2], list(LAYOUTS).index(k[0])))
    for key in order:
        layout, scenario, rate = key
        r = runs[key]
        anchor = runs.get(("one", scenario, rate))
        ratio = (f"{r['broker_cpu_us_per_delivery'] / anchor['broker_cpu_us_per_delivery']:.2f}×"
                 if anchor and anchor["broker_cpu_us_per_delivery"] else "—")
        rooms, subscribers = scenario.split("x")
        print(f"| {LAYOUTS[layout]} | {int(rooms):,} × {int(subscribers):,} | {rate:,} | {r['delivered_per_s']:,.0f} "
              f"| {r['latency_p50_ms']:.1f} | {r['latency_p99_ms']:.1f} | {r['lost_pct']:.1f} | {r['broker_cpu_pct']:.0f} "
              f"| **{r['broker_cpu_us_per_delivery']:.1f}** | {ratio} "
              f"| {r['broker_cpu_us_per_delivery'] * int(subscribers) / 1000:.2f} | {cpu_shares(results, layout, scenario, rate)} "
              f"| {r['load_average']:.1f} |")
    print()


def idle_table(results: str) -> None:
    rows = []
    for layout in LAYOUTS:
        summary_path = os.path.join(results, f"{layout}-idle.json")
        if not os.path.exists(summary_path):
            continue
        summary = load(summary_path)
        generators = [load(p) for p in sorted(glob.glob(os.path.join(results, f"{layout}-idle-*-*.json")))]
        held = sum(g["sessions_ready"] for g in generators)
        rows.append((layout, summary, generators, held))
    if not rows:
        return
    print("| nodes | sessions asked | **held** at the end | not set up | closed | slowest generator set up in | connect p99 (worst generator) "
          "| nodes' RSS growth per session | ÷ 1 node (held) | load avg |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    anchor = next((held for layout, _, _, held in rows if layout == "one"), None)
    for layout, summary, generators, held in rows:
        growth = (summary["rss_peak_kib"] - summary["rss_before_kib"]) / held if held else 0
        closed = sum(g["closed"] for g in generators)
        print(f"| {summary['nodes']} node{'s' if summary['nodes'] > 1 else ''} | {summary['asked']:,} | **{held:,}** | {summary['asked'] - held - closed:,} | {closed:,} "
              f"| {max(g['setup_seconds'] for g in generators):.1f} s | {max(g['connect_p99_ms'] for g in generators):,.0f} ms "
              f"| {growth:.1f} KiB | {f'{held / anchor:.2f}×' if anchor else '—'} | {summary['load_average']:.1f} |")
    print()


def main(results: str) -> None:
    fanout_table(results)
    idle_table(results)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
