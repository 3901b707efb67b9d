// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! docs/options.md's table of knobs is checked against the code: every JSON field with its
//! documented default must be accepted by the native options parser and give the core's default
//! (`vitess_cdc_core::options::defaults`), and every CLI flag must exist with that default. The
//! Java side checks the same table against its SQL options and builder (`VitessOptionsDocTest`),
//! so a default changed in one place and not in the others fails a test on both sides.

use super::Cli;
use clap::CommandFactory;
use std::collections::BTreeSet;
use vitess_cdc_core::StreamOptions;

const TABLE_HEADER: &str = "| setting | SQL option | builder | CLI flag | JSON field | default |";

/// One row of the table, by column.
struct Row {
    setting: String,
    cli: String,
    json: String,
    default: String,
}

fn rows() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/options.md");
    let text = std::fs::read_to_string(path).expect("read docs/options.md");
    let mut lines = text.lines().skip_while(|l| l.trim() != TABLE_HEADER);
    assert!(
        lines.next().is_some(),
        "no table `{TABLE_HEADER}` in {path}"
    );
    let rows: Vec<Row> = lines
        .skip(1) // |---|
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells = cells(l);
            assert_eq!(cells.len(), 6, "a row of docs/options.md has 6 cells: {l}");
            Row {
                setting: cells[0].clone(),
                cli: cells[3].clone(),
                json: cells[4].clone(),
                default: cells[5].clone(),
            }
        })
        .collect();
    assert!(
        rows.len() > 20,
        "docs/options.md's table has {} rows",
        rows.len()
    );
    rows
}

/// The cells of a markdown table row (`\|` is a literal bar).
fn cells(line: &str) -> Vec<String> {
    let line = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut cells = vec![String::new()];
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().unwrap().push(chars.next().unwrap());
            }
            '|' => cells.push(String::new()),
            c => cells.last_mut().unwrap().push(c),
        }
    }
    cells.into_iter().map(|c| c.trim().to_string()).collect()
}

/// The text of every `code span` of a cell.
fn code_spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// The documented default: the code span the cell starts with (none when it starts with a word).
fn default_of(cell: &str) -> Option<&str> {
    cell.starts_with('`').then(|| code_spans(cell)[0])
}

/// The CLI's default where it differs: `(CLI: `value`)`.
fn cli_default_of(cell: &str) -> Option<&str> {
    let rest = &cell[cell.find("CLI: `")? + "CLI: ".len()..];
    code_spans(rest).first().copied()
}

/// The JSON field of a row: the cell's only code span, when the cell starts with one.
fn json_field(row: &Row) -> Option<&str> {
    default_of(&row.json)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Quantity<'a> {
    Millis(u64),
    Bytes(u64),
    Number(u64),
    Bool(bool),
    Word(&'a str),
}

fn quantity(value: &str) -> Quantity<'_> {
    let number = |n: &str| n.parse::<u64>().ok();
    if let Some(n) = value.strip_suffix(" ms").and_then(number) {
        Quantity::Millis(n)
    } else if let Some(n) = value.strip_suffix(" s").and_then(number) {
        Quantity::Millis(n * 1000)
    } else if let Some(n) = value.strip_suffix(" MiB").and_then(number) {
        Quantity::Bytes(n << 20)
    } else if let Some(n) = number(value) {
        Quantity::Number(n)
    } else if let Ok(b) = value.parse::<bool>() {
        Quantity::Bool(b)
    } else {
        Quantity::Word(value)
    }
}

/// A documented value in the unit a name's suffix gives (`_ms`/`-ms`, `_secs`/`-secs`, `bytes`).
fn in_unit_of(name: &str, value: &str) -> serde_json::Value {
    let name = name.replace('-', "_");
    let q = quantity(value);
    match q {
        Quantity::Millis(ms) if name.ends_with("_ms") => ms.into(),
        Quantity::Millis(ms) if name.ends_with("_secs") => {
            assert_eq!(ms % 1000, 0, "{name}: {value} is not whole seconds");
            (ms / 1000).into()
        }
        Quantity::Bytes(b) if name.ends_with("_bytes") => b.into(),
        Quantity::Number(n) => n.into(),
        Quantity::Bool(b) => b.into(),
        Quantity::Word(w) => w.into(),
        other => panic!(
            "{name}: the documented default {value} ({other:?}) does not fit the name's unit"
        ),
    }
}

/// The fields the native options parser knows (from its unknown-field error, which lists them).
fn native_fields() -> BTreeSet<String> {
    let e =
        vitess_cdc_jni::options::parse(r#"{"address":"a:1","keyspace":"k","?":0}"#).unwrap_err();
    let expected = e.message.split("expected one of").nth(1).expect(&e.message);
    let fields: BTreeSet<String> = code_spans(expected).iter().map(|s| s.to_string()).collect();
    assert!(fields.contains("idle_timeout_ms"), "{}", e.message);
    fields
}

#[test]
fn every_json_field_of_the_table_takes_the_cores_default() {
    let fields = native_fields();
    let mut checked = 0;
    for row in rows() {
        let Some(field) = json_field(&row) else {
            continue;
        };
        assert!(
            fields.contains(field),
            "docs/options.md names the JSON field `{field}`, which the native options do not have"
        );
        let Some(default) = default_of(&row.default) else {
            continue;
        };
        let mut json = serde_json::json!({"address": "a:1", "keyspace": "k"});
        json[field] = in_unit_of(field, default);
        let parsed = vitess_cdc_jni::options::parse(&json.to_string())
            .unwrap_or_else(|e| panic!("{}: {json}: {}", row.setting, e.message));
        assert_eq!(
            parsed,
            StreamOptions::new("a:1", "k"),
            "docs/options.md documents `{field}` = {default}, which is not the core's default (vitess_cdc_core::options::defaults)"
        );
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} documented defaults checked");
}

#[test]
fn every_json_field_is_in_the_table() {
    let documented: BTreeSet<String> = rows()
        .iter()
        .filter_map(json_field)
        .map(str::to_string)
        .collect();
    for field in native_fields() {
        assert!(
            documented.contains(&field),
            "the native option `{field}` is missing from docs/options.md's table"
        );
    }
}

/// The CLI flags a row names (`--flag` or `-f`, the first word of each code span).
fn cli_flags(row: &Row) -> Vec<&str> {
    code_spans(&row.cli)
        .into_iter()
        .filter_map(|s| s.split_whitespace().next())
        .filter(|w| w.starts_with('-'))
        .collect()
}

#[test]
fn every_cli_flag_of_the_table_exists_with_its_default() {
    let cli = Cli::command();
    let tail = cli.find_subcommand("tail").unwrap();
    let mut checked = 0;
    for row in rows() {
        for flag in cli_flags(&row) {
            let arg = tail
                .get_arguments()
                .find(|a| match flag.strip_prefix("--") {
                    Some(long) => a.get_long() == Some(long),
                    None => a.get_short() == flag.strip_prefix('-').and_then(|s| s.chars().next()),
                })
                .unwrap_or_else(|| panic!("docs/options.md names the CLI flag {flag}, which `vstream tail` does not have"));
            let long = arg.get_long().unwrap_or(flag);
            let documented = cli_default_of(&row.default).or(default_of(&row.default));
            let declared = match arg.get_action() {
                // a presence flag is off unless given
                clap::ArgAction::SetTrue => Some("false".to_string()),
                _ => arg
                    .get_default_values()
                    .first()
                    .map(|v| v.to_string_lossy().into_owned()),
            };
            if let (Some(documented), Some(declared)) = (documented, declared) {
                let expected = match in_unit_of(long, documented) {
                    serde_json::Value::String(s) => s,
                    v => v.to_string(),
                };
                assert_eq!(
                    declared, expected,
                    "--{long}: docs/options.md says {documented}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 15, "only {checked} CLI defaults checked");
}

#[test]
fn every_stream_flag_is_in_the_table() {
    let documented: BTreeSet<String> = rows()
        .iter()
        .flat_map(|r| {
            cli_flags(r)
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    let cli = Cli::command();
    let longs = |name: &str| -> BTreeSet<String> {
        cli.find_subcommand(name)
            .unwrap()
            .get_arguments()
            .filter_map(|a| a.get_long())
            .map(|l| format!("--{l}"))
            .collect()
    };
    // The stream options are the flags every subcommand shares.
    let shared: BTreeSet<String> = longs("tail")
        .intersection(&longs("snapshot"))
        .cloned()
        .collect::<BTreeSet<_>>()
        .intersection(&longs("positions"))
        .cloned()
        .collect();
    assert!(shared.len() > 20, "{shared:?}");
    for flag in shared {
        assert!(
            documented.contains(&flag),
            "the CLI flag {flag} is missing from docs/options.md's table"
        );
    }
}
