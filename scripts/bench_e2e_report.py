#!/usr/bin/env python3
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
"""Medians and ratios of scripts/bench-e2e.sh's runs: writes the JSON and prints the Markdown
table of docs/benchmarks.md. Fails (exit 1) unless every expected consumer produced figures in
every scenario, so a smoke run proves the whole benchmark works."""
import argparse
import json
import os
import platform
import statistics
import sys

FIGURES = [
    "events_per_s", "process_to_first_s", "open_to_first_s", "first_to_last_s", "cpu_s",
    "cpu_s_first_to_last", "cpu_s_per_m", "cpu_s_per_m_streaming", "peak_rss_mb",
    "latency_p50_ms", "latency_p99_ms", "threads", "rss_mb", "heap_used_mb", "source_setup_to_first_s",
    "rest_cpu_s_per_m_streaming", "machine_cores_busy",
]


def connector_first_record_share(summary):
    """The connector's share of the SQL consumer's time to its first record: from the source
    operator's set-up on its task to the first record (the reader, the split assignment, the native
    library, the VStream, the first rows), next to the same span of the same job with Flink's own
    datagen source, and the whole time from job submission of both."""
    copy = summary.get("copy", {})
    sql, gen = copy.get("sql"), copy.get("sql-datagen")
    if not sql:
        return None
    return {
        "sql_source_setup_to_first_s": sql["source_setup_to_first_s"],
        "sql_submit_to_first_s": sql["open_to_first_s"],
        "datagen_source_setup_to_first_s": gen["source_setup_to_first_s"] if gen else None,
        "datagen_submit_to_first_s": gen["open_to_first_s"] if gen else None,
    }


def derived(run):
    """CPU per million events: of the whole process, and from the first to the last record."""
    m = max(run["events"], 1) / 1e6
    run["cpu_s_per_m"] = run["cpu_s"] / m
    run["cpu_s_per_m_streaming"] = run["cpu_s_first_to_last"] / m
    # The rest of the machine over the same span (VTGate, tablets, MySQL: the server's cost of
    # the same events, plus whatever else ran), and how many cores were busy in all.
    machine_cpu = run.get("machine_cpu_s_first_to_last")
    if machine_cpu is not None:
        run["rest_cpu_s_per_m_streaming"] = max(machine_cpu - run["cpu_s_first_to_last"], 0) / m
        span = run.get("first_to_last_s") or 0
        run["machine_cores_busy"] = machine_cpu / span if span > 0 else None
    return run


def medians(runs):
    out = {"runs": len(runs)}
    for f in FIGURES:
        values = [r[f] for r in runs if r.get(f) is not None]
        out[f] = statistics.median(values) if values else None
    events = statistics.median(r["events"] for r in runs) or 1
    # Per-thread CPU per million events (median): over the process's life (the profile's table),
    # and from the first record to the last (what the run's own window cost, the JIT's share of
    # it included; runs recorded before that figure existed have none).
    for field, key in (("threads_cpu_s", "threads_cpu_s_per_m"),
                       ("threads_cpu_s_first_to_last", "threads_cpu_s_per_m_first_to_last"),
                       ("threads_allocated_mb_first_to_last", "threads_allocated_mb_per_m_first_to_last")):
        threads = {}
        for r in runs:
            for name, cpu in r.get(field, {}).items():
                threads.setdefault(name, []).append(cpu)
        out[key] = {
            n: statistics.median(v) / (events / 1e6)
            for n, v in sorted(threads.items(), key=lambda kv: -statistics.median(kv[1]))
            if statistics.median(v) > 0
        }
    return out


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            mem = next(l.split(":", 1)[1].strip() for l in f if l.startswith("MemTotal"))
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "cpu_model": model, "memory": mem,
            "kernel": platform.release(), "arch": platform.machine()}


def fmt(v, digits=0):
    if v is None:
        return "–"
    return f"{v:,.{digits}f}".replace(",", " ")


def ratio(a, b):
    return f"{a / b:.2f}×" if a is not None and b else "–"


def table(summary, scenarios, consumers):
    lines = ["| scenario | consumer | events/s | vs floor | vs Debezium | CPU s/M ev (process) | "
             "CPU s/M ev (first→last) | rest of machine s/M ev (first→last) | cores busy | peak RSS MiB | "
             "start → first record s | latency p50 / p99 ms |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in scenarios:
        floor = summary.get(s, {}).get("floor", {})
        dbz = summary.get(s, {}).get("debezium", {})
        for c in consumers:
            m = summary.get(s, {}).get(c)
            if not m:
                continue
            lat = (f"{fmt(m['latency_p50_ms'], 1)} / {fmt(m['latency_p99_ms'], 1)}"
                   if m["latency_p50_ms"] is not None else "–")
            rate = m["events_per_s"] if s != "latency" else None
            lines.append(
                f"| {s} | {c} | {fmt(rate)} | {ratio(rate, floor.get('events_per_s')) if s != 'latency' else '–'} | "
                f"{ratio(rate, dbz.get('events_per_s')) if s != 'latency' else '–'} | "
                f"{fmt(m['cpu_s_per_m'], 2)} | {fmt(m['cpu_s_per_m_streaming'], 2)} | "
                f"{fmt(m.get('rest_cpu_s_per_m_streaming'), 2) if s != 'latency' else '–'} | "
                f"{fmt(m.get('machine_cores_busy'), 2)} | "
                f"{fmt(m['peak_rss_mb'])} | {fmt(m['process_to_first_s'], 2)} | {lat} |")
    return "\n".join(lines)


# The connector's threads by the names the kernel keeps (digits dropped), for the A/B table.
THREADS = [("native stream", "vitess-cdc-work"), ("fetcher", "Source Data Fet"), ("task", "Source: "),
           ("JIT", "C CompilerThre"), ("main", "java"), ("GC", "GC Thread#")]


def threads_table(summary, scenarios, consumers, key="threads_cpu_s_per_m", ab_only=True):
    """CPU µs per event by thread (medians): of the A/B consumers (consumer@label), or every JVM one.

    The first → last table also gives the heap bytes per event the data path's two Java threads
    (the fetcher, the task) allocated: exact counts, so an A/B of allocation needs no rounds."""
    window = key.endswith("first_to_last")
    alloc_head = " | heap B/event: fetcher | task" if window else ""
    lines = ["| scenario | consumer | events/s | " + " | ".join(n for n, _ in THREADS) + alloc_head + " |",
             "|---|---|---:|" + "---:|" * (len(THREADS) + (2 if window else 0))]
    for s in scenarios:
        for c in consumers:
            m = summary.get(s, {}).get(c)
            if (ab_only and "@" not in c) or not m or not m.get(key):
                continue
            per = m[key]
            cells = [fmt(sum(v for k, v in per.items() if k.startswith(prefix)), 2) for _, prefix in THREADS]
            if window:
                # MB per million events is bytes per event.
                alloc = m.get("threads_allocated_mb_per_m_first_to_last") or {}
                cells += [fmt(sum(v for k, v in alloc.items() if k.startswith(prefix)), 0)
                          for prefix in ("Source Data Fet", "Source: ")]
            lines.append(f"| {s} | {c} | {fmt(m['events_per_s'])} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("runs")
    p.add_argument("out")
    p.add_argument("--meta", nargs="*", default=[])
    p.add_argument("--expect", default="")
    p.add_argument("--scenarios", default="")
    a = p.parse_args()
    with open(a.runs) as f:
        runs = [derived(json.loads(l)) for l in f if l.strip()]
    consumers = a.expect.split()
    scenarios = a.scenarios.split()
    summary = {}
    for s in scenarios:
        for c in consumers:
            mine = [r for r in runs if r["scenario"] == s and r["consumer"] == c]
            if mine:
                summary.setdefault(s, {})[c] = medians(mine)
    loads = [float(r["loadavg_before"].split()[0]) for r in runs if r.get("loadavg_before")]
    report = {
        "tool": "scripts/bench-e2e.sh",
        "meta": dict(kv.split("=", 1) for kv in a.meta),
        "machine": machine(),
        "loadavg_1min": {"min": min(loads, default=None), "median": statistics.median(loads) if loads else None,
                         "max": max(loads, default=None)},
        "medians": summary,
        "connector_first_record_share": connector_first_record_share(summary),
        "runs": runs,
    }
    with open(a.out, "w") as f:
        json.dump(report, f, indent=1)
    print(table(summary, scenarios, consumers))
    if any("@" in c for c in consumers):
        print("\nCPU µs per event by thread (A/B, medians):\n" + threads_table(summary, scenarios, consumers))
    window = threads_table(summary, scenarios, consumers, "threads_cpu_s_per_m_first_to_last", ab_only=False)
    if window.count("\n") > 1:
        print("\nCPU µs per event by thread from the first record to the last (medians; JIT: the compiler "
              "threads, busy inside the run while the records' path is still being compiled):\n" + window)
    share = report["connector_first_record_share"]
    if share:
        print(f"\ntime to the first record (copy, medians): the SQL job with vitess-cdc "
              f"{fmt(share['sql_submit_to_first_s'], 3)} s from submission, of which "
              f"{fmt(share['sql_source_setup_to_first_s'], 3)} s from the source's set-up on its task (the "
              f"connector's share); with Flink's datagen source {fmt(share['datagen_submit_to_first_s'], 3)} s "
              f"and {fmt(share['datagen_source_setup_to_first_s'], 3)} s")
    print(f"\nload average (1 min) before the runs: {report['loadavg_1min']}; results in {a.out}")
    missing = []
    for s in scenarios:
        for c in consumers:
            if c.split("@")[0] == "sql-datagen" and s != "copy":
                continue  # the datagen baseline runs beside the copy only
            m = summary.get(s, {}).get(c)
            ok = m and (m["latency_p50_ms"] is not None if s == "latency" else (m["events_per_s"] or 0) > 0)
            if not ok:
                missing.append(f"{s}/{c}")
    if missing:
        print(f"bench-e2e: no figures for {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
