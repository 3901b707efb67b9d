# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
"""Per-thread summary of scripts/profile-e2e.sh's perf and JFR output.

perf: `perf report --sort comm,dso,sym --field-separator=TAB` lines (overhead, thread, object,
symbol); JFR: `jfr print --events jdk.ExecutionSample --stack-depth 1` (thread and top frame of
each sample). Thread names lose their digits and subtask suffixes, so that both shards' threads
add up.
"""
import collections
import json
import re
import sys

TOP = 8


def thread_group(name):
    name = re.sub(r"\s*\(\d+/\d+\)#\d+$", "", name)
    name = re.sub(r"\[\d+\]", "", name)
    name = re.sub(r"\d+", "", name)
    if name.startswith("Source Data Fetcher"):
        return "Source Data Fetcher"
    if name.startswith("Source:"):
        return "Source: … (task)"
    return name.strip()


def perf_summary(path):
    threads = collections.defaultdict(float)
    symbols = collections.defaultdict(lambda: collections.Counter())
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("#") or not line.strip():
            continue
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 4 or not parts[0].strip().endswith("%"):
            continue
        share = float(parts[0].strip().rstrip("%"))
        group = thread_group(parts[1].strip())
        dso = parts[2].strip()
        sym = re.sub(r"^\[[.k]\]\s*", "", parts[3].strip())
        if dso.startswith("[JIT]") or dso == "perf-map" or sym.startswith("0x"):
            sym = "(JIT-compiled Java)" if "JIT" in dso or dso.startswith("[unknown]") else sym
        sym = re.sub(r"::h[0-9a-f]{16}$", "", sym)
        threads[group] += share
        symbols[group][f"{sym}  [{dso}]"] += share
    return threads, symbols


# The native stream thread's functions by what they do (first match wins).
COMPONENTS = [
    ("kernel (syscalls, scheduling, page faults)", lambda dso, sym: dso.startswith("[kernel")),
    ("malloc / free", lambda dso, sym: re.search(r"malloc|free|unlink_chunk|realloc|^_int_|consolidate|"
                                                 r"__rdl_|__rust_(alloc|dealloc|realloc)|finish_grow", sym)),
    ("memcpy / memmove / memcmp", lambda dso, sym: re.search(r"^__mem|^mem(cpy|move|set|cmp)", sym)),
    ("protobuf decoding (prost)", lambda dso, sym: re.search(r"prost|vitess_cdc_protos", sym)),
    ("typed value decoding (core::decode)", lambda dso, sym: "vitess_cdc_core::decode" in sym),
    ("batch encoding (jni)", lambda dso, sym: "vitess_cdc_jni" in sym),
    ("the rest of the core (state machine, positions)", lambda dso, sym: "vitess_cdc_core" in sym),
    ("gRPC, HTTP/2, tokio", lambda dso, sym: re.search(r"tokio|h2::|hyper|tonic|tower|bytes::", sym)),
    ("UTF-8 checks, strings, hashing, fmt", lambda dso, sym: re.search(r"utf8|str::|String|hash|fmt", sym)),
]


def components(symbols):
    out = collections.Counter()
    for key, share in symbols.items():
        sym, _, dso = key.rpartition("  [")
        dso = dso.rstrip("]")
        for name, match in COMPONENTS:
            if match(dso, sym):
                out[name] += share
                break
        else:
            out["other (inlined iterators, closures, …)"] += share
    return out


def jfr_summary(path):
    counts = collections.Counter()
    frames = collections.defaultdict(collections.Counter)
    thread = None
    in_stack = False
    for line in open(path, encoding="utf-8", errors="replace"):
        s = line.strip()
        m = re.match(r'sampledThread = "(.*)" \(javaThreadId', s)
        if m:
            thread = thread_group(m.group(1))
            continue
        if s.startswith("stackTrace = ["):
            in_stack = True
            continue
        if in_stack:
            in_stack = False
            if thread is not None and s and s != "]":
                frame = re.sub(r"\s+line: \d+.*$", "", s)
                counts[thread] += 1
                frames[thread][frame] += 1
    return counts, frames


def main():
    perf_txt, jfr_txt, run_json = sys.argv[1:4]
    try:
        run = json.loads(open(run_json).read().strip().splitlines()[-1])
        print(f"run: {run.get('consumer')} {run.get('scenario')}, {run.get('events')} events, "
              f"{run.get('events_per_s', 0):.0f} ev/s, CPU {run.get('cpu_s', 0):.1f} s")
    except (OSError, ValueError, IndexError):
        pass
    threads, symbols = perf_summary(perf_txt)
    print("\n== perf: share of all samples by thread, and each thread's hottest functions")
    for group, share in sorted(threads.items(), key=lambda kv: -kv[1])[:10]:
        print(f"{share:6.2f}%  {group}")
        for sym, s in symbols[group].most_common(TOP):
            print(f"          {s:6.2f}%  {sym}")
    native = symbols.get("vitess-cdc-work")
    if native:
        total_native = sum(native.values()) or 1
        print("\n== perf: the native stream thread (vitess-cdc-work) by component")
        for name, share in components(native).most_common():
            print(f"{100.0 * share / total_native:6.1f}%  {name}")
    counts, frames = jfr_summary(jfr_txt)
    total = sum(counts.values()) or 1
    print("\n== JFR: Java method samples by thread (top frame)")
    for group, n in counts.most_common(8):
        print(f"{100.0 * n / total:6.2f}%  {group} ({n} samples)")
        for frame, k in frames[group].most_common(TOP):
            print(f"          {100.0 * k / n:6.2f}%  {frame}")


if __name__ == "__main__":
    main()
