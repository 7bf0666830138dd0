"""The table, the ratios, the summary JSON and the plot of Benchmarks/stomp-compare.sh, from
the stompload JSON reports in RESULTS_DIR (one per broker, scenario and offered rate).

    python Benchmarks/stomp_compare_report.py RESULTS_DIR SUMMARY_JSON PLOT_PNG

The plot (p99 publish-to-deliver latency, delivered rate and broker CPU per delivery against
offered rate, one line per broker and scenario) needs matplotlib; without it only the plot is skipped."""
import glob
import json
import os
import sys


def load(results: str) -> list[dict]:
    runs = []
    for path in sorted(glob.glob(os.path.join(results, "*.json"))):
        with open(path) as f:
            run = json.load(f)
        run["broker"], _, run["setup"] = run["label"].partition(" ")
        runs.append(run)
    return runs


def fmt(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


def latency(run: dict, key: str) -> str:
    """A percentile, or n/a when no measured publish arrived within the drain time."""
    return fmt(run[key], 2) if run["latency_samples"] else "n/a"


def traffic_table(runs: list[dict]) -> list[str]:
    lines = ["| broker | scenario | offered/s | delivered/s | p50 ms | p99 ms | p99.9 ms | lost % | broker CPU % "
             "| broker µs/delivery | broker RSS MiB | generator CPU % | load avg |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(runs, key=lambda r: (r["setup"], r["broker"], r["offered_per_s"])):
        lines.append(
            f"| {r['broker']} | {r['setup']} | {fmt(r['offered_per_s'])} | {fmt(r['delivered_per_s'])} "
            f"| {latency(r, 'latency_p50_ms')} | {latency(r, 'latency_p99_ms')} | {latency(r, 'latency_p999_ms')} "
            f"| {fmt(r.get('lost_pct', 0), 1)} | {fmt(r['broker_cpu_pct'])} | {fmt(r['broker_cpu_us_per_delivery'], 2)} "
            f"| {fmt(r['broker_rss_kib'] / 1024)} | {fmt(r['generator_cpu_pct'])} | {fmt(r['load_average'], 1)} |")
    return lines


def idle_table(runs: list[dict]) -> list[str]:
    lines = ["| broker | sessions asked | ready | failed | set up in s | connect p99 ms | broker KiB/session "
             "| broker RSS MiB | broker µs/connect | broker µs/close (all at once) | load avg |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        lines.append(f"| {r['broker']} | {fmt(r['sessions'])} | {fmt(r['sessions_ready'])} | {r['failed_connects']} "
                     f"| {fmt(r['setup_seconds'], 1)} | {fmt(r['connect_p99_ms'], 1)} | {fmt(r['broker_kib_per_session'], 2)} "
                     f"| {fmt(r['broker_rss_kib'] / 1024)} | {fmt(r.get('broker_cpu_us_per_connect', 0))} "
                     f"| {fmt(r.get('broker_cpu_us_per_close', 0))} | {fmt(r['load_average'], 1)} |")
    return lines


def ratios(runs: list[dict], base: str = "rabbitmq", subject: str = "meetupd") -> list[dict]:
    """meetupd against the other broker, per scenario: at each rate both ran, and at their peaks."""
    out = []
    for setup in sorted({r["setup"] for r in runs}):
        by = {b: {r["offered_per_s"]: r for r in runs if r["setup"] == setup and r["broker"] == b} for b in (base, subject)}
        if not by[base] or not by[subject]:
            continue
        peak = {b: max(by[b].values(), key=lambda r: r["delivered_per_s"]) for b in by}
        out.append({
            "scenario": setup, "what": "peak delivered/s",
            base: peak[base]["delivered_per_s"], subject: peak[subject]["delivered_per_s"],
            "ratio": peak[subject]["delivered_per_s"] / max(peak[base]["delivered_per_s"], 1)})
        for rate in sorted(set(by[base]) & set(by[subject])):
            a, b = by[base][rate], by[subject][rate]
            out.append({"scenario": setup, "what": f"broker µs/delivery at {rate:,.0f}/s offered",
                        base: a["broker_cpu_us_per_delivery"], subject: b["broker_cpu_us_per_delivery"],
                        "ratio": a["broker_cpu_us_per_delivery"] / max(b["broker_cpu_us_per_delivery"], 1e-9)})
            if not (a["latency_samples"] and b["latency_samples"]):
                continue
            out.append({"scenario": setup, "what": f"p99 ms at {rate:,.0f}/s offered",
                        base: a["latency_p99_ms"], subject: b["latency_p99_ms"],
                        "ratio": a["latency_p99_ms"] / max(b["latency_p99_ms"], 1e-9)})
    return out


def plot(runs: list[dict], path: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing: no plot", file=sys.stderr)
        return
    figure, (latency, delivered, cpu) = plt.subplots(1, 3, figsize=(17, 5))
    for broker, setup in sorted({(r["broker"], r["setup"]) for r in runs}):
        points = sorted((r for r in runs if r["broker"] == broker and r["setup"] == setup), key=lambda r: r["offered_per_s"])
        offered = [r["offered_per_s"] for r in points]
        label = f"{broker} {setup}"
        timed = [r for r in points if r["latency_samples"]]
        latency.plot([r["offered_per_s"] for r in timed], [max(r["latency_p99_ms"], 1e-3) for r in timed], marker="o", label=label)
        delivered.plot(offered, [r["delivered_per_s"] for r in points], marker="o", label=label)
        cpu.plot(offered, [r["broker_cpu_us_per_delivery"] for r in points], marker="o", label=label)
    latency.set(xscale="log", yscale="log", xlabel="offered deliveries/s", ylabel="p99 publish-to-deliver (ms)",
                title="Latency against offered load")
    delivered.set(xscale="log", yscale="log", xlabel="offered deliveries/s", ylabel="delivered/s",
                  title="Delivered against offered (broker on one core)")
    cpu.set(xscale="log", yscale="log", xlabel="offered deliveries/s", ylabel="broker CPU µs per delivery",
            title="Broker CPU per delivery (/proc/PID/stat)")
    for axes in (latency, delivered, cpu):
        axes.grid(True, which="both", alpha=0.3)
        axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    print(f"plot: {path}")


def main(results: str, summary: str, png: str) -> None:
    runs = load(results)
    traffic = [r for r in runs if r["scenario"] != "idle"]
    idle = [r for r in runs if r["scenario"] == "idle"]
    if traffic:
        print("\n".join(traffic_table(traffic)))
    if idle:
        print()
        print("\n".join(idle_table(idle)))
    compared = ratios(traffic)
    if compared:
        print("\n| scenario | figure | rabbitmq | meetupd | ratio (meetupd better when > 1) |\n|---|---|---|---|---|")
        for c in compared:
            print(f"| {c['scenario']} | {c['what']} | {fmt(c['rabbitmq'], 2)} | {fmt(c['meetupd'], 2)} | {c['ratio']:.2f}× |")
    with open(summary, "w") as f:
        json.dump({"runs": runs, "ratios": compared}, f, indent=2)
    print(f"summary: {summary}")
    if traffic:
        plot(traffic, png)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
