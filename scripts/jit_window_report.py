#!/usr/bin/env python3
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
"""What the JIT did inside one benchmark run's window (docs/benchmarks.md, "The JIT inside a short run").

Reads a HotSpot compilation log (-XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation
-XX:LogFile=F, which scripts/bench-e2e.sh writes per JVM run with BENCH_JIT_LOG=<dir>) and the
window of that run (the JVM's uptime at the first record and the last, from the run's result:
process_to_first_s and first_to_last_s), and prints:

* the C2 queue (tasks waiting for the optimizing compiler) at the first record and at the last;
* how long the compiler threads spent compiling inside the window, by tier and by whose code;
* the compilations that overlapped the window the longest;
* for the connector's methods that became hot: when each was queued for C2, and when C2 took it
  (or that it did not within the run), which says how much of the run they ran less optimized.

Usage: jit_window_report.py LOG --first SECONDS --span SECONDS
       jit_window_report.py LOG --result RUN.json   (a run's JSON line, as bench-e2e.sh writes it)
"""
import argparse
import json
import re
import sys

ATTRS = re.compile(r"(\w+)='([^']*)'")
OURS = "io.vitesscdc."


def attrs(text):
    return dict(ATTRS.findall(text))


def owner(method):
    if method.startswith(OURS) and not method.startswith(OURS + "bench."):
        return "vitess-cdc"
    if method.startswith("org.apache.flink.") or method.startswith("org.codehaus.janino."):
        return "flink"
    return "jdk and others"


def read(path):
    """The queued tasks and the compilations (start, end, level, method) of one log."""
    text = open(path, errors="replace").read()
    queued = {}
    for m in re.finditer(r"<task_queued ([^>]*)/>", text):
        a = attrs(m.group(1))
        queued[a["compile_id"]] = (float(a["stamp"]), a["method"].replace("&lt;", "<").replace("&gt;", ">"),
                                   int(a.get("level", "4")))
    compiles = []
    for m in re.finditer(r"<task ([^>]*)>.*?<task_done([^>]*)/>", text, re.S):
        a, done = attrs(m.group(1)), attrs(m.group(2))
        if "compile_id" not in a or "stamp" not in done:
            continue
        method = a["method"].replace("&lt;", "<").replace("&gt;", ">")
        compiles.append((float(a["stamp"]), float(done["stamp"]), int(a.get("level", "4")), method,
                         a["compile_id"], a.get("compile_kind") == "osr"))
    return queued, compiles


def c2_queue_at(t, queued, started):
    return sum(1 for cid, (q, _, level) in queued.items() if level == 4 and q <= t and started.get(cid, 1e18) > t)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("log")
    p.add_argument("--first", type=float, help="the JVM's uptime at the first record, s")
    p.add_argument("--span", type=float, help="from the first record to the last, s")
    p.add_argument("--result", help="a run's JSON line (or a file of one) with process_to_first_s and first_to_last_s")
    p.add_argument("--top", type=int, default=8)
    a = p.parse_args()
    if a.result:
        line = open(a.result).read() if not a.result.lstrip().startswith("{") else a.result
        run = json.loads(line)
        a.first, a.span = run["process_to_first_s"], run["first_to_last_s"]
    if a.first is None or a.span is None:
        p.error("give --first and --span, or --result")
    t0, t1 = a.first, a.first + a.span
    queued, compiles = read(a.log)
    started = {cid: start for start, _, _, _, cid, _ in compiles}

    print(f"window: {t0:.3f} s to {t1:.3f} s of the JVM's uptime ({a.span:.3f} s)")
    print(f"C2 queue: {c2_queue_at(t0, queued, started)} tasks at the first record, "
          f"{c2_queue_at(t1, queued, started)} at the last")

    busy = {}
    overlapping = []
    for start, end, level, method, cid, osr in compiles:
        inside = min(end, t1) - max(start, t0)
        if inside <= 0:
            continue
        key = ("C2" if level == 4 else f"C1 tier {level}", owner(method))
        busy[key] = busy.get(key, 0.0) + inside
        overlapping.append((inside, start, end, level, method))
    print("\ncompiling inside the window (s of compiler-thread wall time; the cores are shared, so "
          "this is an upper bound of their CPU):")
    print("| compiler | vitess-cdc | flink | jdk and others |")
    print("|---|---:|---:|---:|")
    for comp in sorted({k[0] for k in busy}):
        cells = [f"{busy.get((comp, o), 0.0):.3f}" for o in ("vitess-cdc", "flink", "jdk and others")]
        print(f"| {comp} | " + " | ".join(cells) + " |")

    print(f"\nthe {a.top} compilations that overlapped the window the longest:")
    for inside, start, end, level, method in sorted(overlapping, reverse=True)[: a.top]:
        print(f"  {inside:.3f} s inside ({start:.3f} to {end:.3f}), tier {level}: {method}")

    print("\nthe connector's methods queued for C2 before the last record (queued -> taken by C2; one that "
          "C2 inlined into a caller it compiled runs optimized without being taken itself):")
    rows = sorted((q, cid, m) for cid, (q, m, level) in queued.items()
                  if level == 4 and owner(m) == "vitess-cdc" and q <= t1)
    for q, cid, method in rows:
        s = started.get(cid)
        taken = f"{s:.3f} (+{s - q:.3f} s)" if s is not None and s <= t1 else "not within the run"
        print(f"  {q:.3f} -> {taken}  {method}")
    if not rows:
        print("  none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
