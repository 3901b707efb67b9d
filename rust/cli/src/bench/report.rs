// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! What a run reports: CPU and wall time of a measurement, the tables printed, and the JSON
//! written to `--json`.

use crate::live::Scenario;
use crate::Args;
use serde_json::{json, Value as Json};
use std::time::Instant;

/// User + system CPU seconds of this process so far.
pub(crate) fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    if rc != 0 {
        return 0.0;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Busy CPU seconds of the whole machine so far, every core and process (`/proc/stat`: user,
/// nice, system, irq, softirq and steal time): beside a consumer's own CPU over the same span it
/// tells what the rest of the machine (VTGate, the tablets, MySQL) spent on the same events.
pub(crate) fn machine_busy_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|stat| stat.lines().next().map(busy_seconds_of_cpu_line))
        .unwrap_or(0.0)
}

/// The busy seconds of `/proc/stat`'s `cpu` line (USER_HZ ticks: 100 per second on Linux).
fn busy_seconds_of_cpu_line(line: &str) -> f64 {
    let ticks: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|t| t.parse().unwrap_or(0))
        .collect();
    // user nice system idle iowait irq softirq steal: everything but idle and iowait.
    let busy: u64 = [0, 1, 2, 5, 6, 7]
        .iter()
        .filter_map(|&i| ticks.get(i))
        .sum();
    busy as f64 / 100.0
}

#[cfg(test)]
mod tests {
    #[test]
    fn busy_seconds_leave_idle_and_iowait_out() {
        let line = "cpu  1000 20 300 90000 400 5 6 7 0 0";
        assert_eq!(super::busy_seconds_of_cpu_line(line), 13.38);
    }
}

pub(crate) struct Meter {
    pub(crate) wall: Instant,
    cpu: f64,
}

impl Meter {
    pub(crate) fn start() -> Meter {
        Meter {
            wall: Instant::now(),
            cpu: cpu_seconds(),
        }
    }
    /// (wall seconds, cpu seconds)
    pub(crate) fn stop(&self) -> (f64, f64) {
        (self.wall.elapsed().as_secs_f64(), cpu_seconds() - self.cpu)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Measurement {
    pub(crate) name: String,
    pub(crate) events: u64,
    pub(crate) bytes: u64,
    pub(crate) wall_s: f64,
    pub(crate) cpu_s: f64,
}

impl Measurement {
    pub(crate) fn events_per_s(&self) -> f64 {
        self.events as f64 / self.wall_s.max(1e-9)
    }
    pub(crate) fn mb_per_s(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.wall_s.max(1e-9)
    }
    pub(crate) fn cpu_per_million(&self) -> f64 {
        self.cpu_s / (self.events as f64 / 1e6).max(1e-12)
    }
    pub(crate) fn json(&self) -> Json {
        json!({
            "name": self.name, "events": self.events, "bytes": self.bytes,
            "wall_seconds": self.wall_s, "cpu_seconds": self.cpu_s,
            "events_per_second": self.events_per_s(), "mb_per_second": self.mb_per_s(),
            "cpu_seconds_per_million_events": self.cpu_per_million(),
        })
    }
}

pub(crate) fn print_table(title: &str, rows: &[Measurement], bytes_label: &str) {
    println!("\n{title}");
    println!(
        "{:<44} {:>10} {:>10} {:>12} {:>9} {:>12}",
        "measurement", "events", "wall s", "events/s", bytes_label, "CPU s/M ev"
    );
    println!("{}", "-".repeat(102));
    for m in rows {
        println!(
            "{:<44} {:>10} {:>10.2} {:>12.0} {:>9.1} {:>12.2}",
            m.name,
            m.events,
            m.wall_s,
            m.events_per_s(),
            m.mb_per_s(),
            m.cpu_per_million()
        );
    }
}

fn named(mut m: Measurement, name: &str) -> Measurement {
    m.name = name.to_string();
    m
}

/// The median run (by wall time), renamed.
pub(crate) fn median(runs: &[Measurement], name: &str) -> Measurement {
    let mut sorted = runs.to_vec();
    sorted.sort_by(|a, b| a.wall_s.total_cmp(&b.wall_s));
    named(sorted[sorted.len() / 2].clone(), name)
}

/// Prints every live scenario (its median runs and the core/baseline ratios); their JSON.
pub(crate) fn live_scenarios(args: &Args, results: &[Scenario]) -> Vec<Json> {
    println!(
        "\nLive against VTGate {} ({}.{}; MB/s = gRPC bytes for the baseline, batch bytes for the core)",
        args.address, args.keyspace, args.table
    );
    let mut live_json = Vec::new();
    for sc in results {
        let (b, c) = (&sc.baseline, &sc.core);
        print_table(
            &format!("{} — median of {} runs", sc.name, args.repeat),
            &[b.clone(), c.clone()],
            "MB/s",
        );
        let cpu_ratio = c.cpu_per_million() / b.cpu_per_million().max(1e-12);
        let rate_ratio = c.events_per_s() / b.events_per_s().max(1e-12);
        println!(
            "{:<44} core/baseline: events/s ×{rate_ratio:.2}, CPU per event ×{cpu_ratio:.2}",
            ""
        );
        live_json.push(json!({
            "scenario": sc.name, "baseline": b.json(), "core": c.json(),
            "core_over_baseline_events_per_second": rate_ratio,
            "core_over_baseline_cpu_per_event": cpu_ratio,
            "runs": {
                "baseline": sc.runs.0.iter().map(Measurement::json).collect::<Vec<_>>(),
                "core": sc.runs.1.iter().map(Measurement::json).collect::<Vec<_>>(),
            },
        }));
    }
    live_json
}

pub(crate) fn machine() -> Json {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_default();
    json!({"cpus": cpus, "cpu_model": model, "os": std::env::consts::OS, "arch": std::env::consts::ARCH})
}

/// Writes the whole run as JSON to `--json` (a failure to write is printed, not fatal).
pub(crate) fn write(
    args: &Args,
    machine: Json,
    offline: &[Measurement],
    live_json: Vec<Json>,
    failed: &Option<String>,
) {
    let report = json!({
        "tool": "vitess-cdc-bench",
        "version": env!("CARGO_PKG_VERSION"),
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "machine": machine,
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "args": {
            "offline_rows": args.offline_rows, "copy_rows": args.copy_rows,
            "stream_rows": args.stream_rows, "writer_batch": args.writer_batch, "repeat": args.repeat,
            "address": args.address, "keyspace": args.keyspace, "table": args.table,
        },
        "offline": offline.iter().map(Measurement::json).collect::<Vec<_>>(),
        "live": live_json,
        "live_error": failed,
    });
    if let Some(dir) = std::path::Path::new(&args.json).parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    match std::fs::write(&args.json, serde_json::to_string_pretty(&report).unwrap()) {
        Ok(()) => println!("\nresults written to {}", args.json),
        Err(e) => eprintln!("cannot write {}: {e}", args.json),
    }
}
