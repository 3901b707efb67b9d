#!/usr/bin/env python3
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
"""Summary of scripts/bench-scale.sh: one scripts/bench-e2e.sh report per shard count, merged into
one JSON and printed as the table of docs/benchmarks.md ("Growth with shards and tables"): per
shard count, scenario and consumer the events/s (and the ratio to the floor), CPU µs per event
from the first to the last record, threads, the JVM's native memory (RSS beyond its fixed
pre-touched heap) and its growth per split added since the fewest shards measured, heap in use,
and the time from job submission to the first record."""
import json
import statistics
import sys


def fmt(v, digits=0):
    return "–" if v is None else f"{v:,.{digits}f}".replace(",", " ")


def ratio(v):
    return "–" if v is None else f"{v:.2f}×"


def main():
    out, inputs = sys.argv[1], sys.argv[2:]
    reports = []
    for path in inputs:
        with open(path) as f:
            reports.append(json.load(f))
    reports.sort(key=lambda r: len(r["meta"].get("shards", "").split()))
    lines = ["| shards | scenario | consumer | events/s | vs floor | CPU µs / event (first→last) | "
             "threads | native MiB (RSS − heap) | MiB per added split | heap used MiB | submission → first record s | "
             "source set-up → first record s |",
             "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    rows = []
    for r in reports:
        shards = len(r["meta"].get("shards", "").split())
        for scenario, by_consumer in r["medians"].items():
            floor = by_consumer.get("floor", {}).get("events_per_s")
            for consumer, m in by_consumer.items():
                events = median_of(r, scenario, consumer, "events")
                rate = m.get("events_per_s")
                cpu_us = m["cpu_s_first_to_last"] / events * 1e6 if events and m.get("cpu_s_first_to_last") else None
                native = None
                if consumer != "floor" and m.get("rss_mb") is not None:
                    committed = median_of(r, scenario, consumer, "heap_committed_mb")
                    native = m["rss_mb"] - committed if committed is not None else None
                elif consumer == "floor":
                    native = m.get("rss_mb") or m.get("peak_rss_mb")
                row = {"shards": shards, "scenario": scenario, "consumer": consumer, "events_per_s": rate,
                       "vs_floor": rate / floor if rate and floor else None, "cpu_us_per_event": cpu_us,
                       "threads": m.get("threads"), "native_mb": native,
                       "heap_used_mb": m.get("heap_used_mb"), "process_to_first_s": m.get("process_to_first_s"),
                       "open_to_first_s": m.get("open_to_first_s"),
                       "source_setup_to_first_s": m.get("source_setup_to_first_s")}
                rows.append(row)
                # Growth against the fewest shards measured for this scenario and consumer: what
                # one more split costs (the JVM's and Flink's own native memory are in both).
                base = next((b for b in rows if b["scenario"] == scenario and b["consumer"] == consumer), None)
                row["native_mb_per_added_split"] = (
                    (native - base["native_mb"]) / (shards - base["shards"])
                    if base is not None and native is not None and base["native_mb"] is not None
                    and shards > base["shards"] else None)
                lines.append(
                    f"| {shards} | {scenario} | {consumer} | {fmt(rate)} | "
                    f"{ratio(row['vs_floor'])} | "
                    f"{fmt(cpu_us, 2)} | {fmt(row['threads'])} | {fmt(native)} | {fmt(row['native_mb_per_added_split'], 1)} | "
                    f"{fmt(row['heap_used_mb'])} | {fmt(row['open_to_first_s'], 2)} | "
                    f"{fmt(row['source_setup_to_first_s'], 3)} |")
    with open(out, "w") as f:
        json.dump({"tool": "scripts/bench-scale.sh", "rows": rows, "reports": reports}, f, indent=1)
    print("\n".join(lines))
    print(f"\nresults in {out}")
    return 0 if rows else 1


def runs_of(report, scenario, consumer):
    return [x for x in report["runs"] if x["scenario"] == scenario and x["consumer"] == consumer]


def median_of(report, scenario, consumer, field):
    values = [x[field] for x in runs_of(report, scenario, consumer) if x.get(field) is not None]
    return statistics.median(values) if values else None


if __name__ == "__main__":
    sys.exit(main())
