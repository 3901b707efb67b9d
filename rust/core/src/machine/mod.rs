// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The VStream event grammar as a pure state machine: VEvents in, consumer [`Event`]s out.
//! No I/O here, so every quirk of the grammar is unit-testable.
//!
//! Grammar handled (docs/architecture.md, protocol P1, P2, P6 and P7):
//! - transactions `BEGIN … VGTID COMMIT`, possibly spread over several responses, are buffered
//!   and emitted at COMMIT followed by a [`Event::Mark`]; a transaction above the byte budget is
//!   emitted in chunks and the number of records already emitted is remembered, so that a
//!   replay after a reconnect skips exactly those;
//! - duplicate BEGIN (empty tables in the copy phase), two VGTIDs in one transaction (the last
//!   wins), BEGIN/COMMIT without VGTID (no mark), heartbeats inside a transaction (ignored);
//! - `VGTID, DDL` and `VGTID, OTHER` (position-only events);
//! - FIELD events cached per (keyspace, shard, table); a [`Event::Schema`] only when the shape
//!   changed;
//! - COPY_COMPLETED per shard and the final one, JOURNAL (resharding).
//!
//! Positions follow the table-switch window rule (docs/architecture.md, protocol P3): while a shard's copy is unfinished its
//! position lists the tables still to copy, so a resume never degrades to stream-only.
//!
//! The changelog is exact in every phase ([`crate::copyfilter`]): while a table is copied,
//! changes of rows beyond the copy position are dropped (the copy delivers those rows later),
//! and finished tables keep a done mark until the shard's copy completes.

pub mod charset;
pub mod collations;
pub mod copyfilter;
pub mod ddl;
pub mod decode;
pub mod keyorder;
pub mod uca900;
pub mod value;

use crate::copyfilter::{CopiedRange, TableCopy};
use crate::decode::{bare_table_name, bitmap_any, schema_from_field_event, RowDecoder};
use crate::error::{Error, ErrorCode, Result};
use crate::event::{ChangeEvent, Event, RowKind, TableSchema};
use crate::metrics::Metrics;
use crate::options::DestructiveDdl;
use crate::position::{ShardPosition, StreamPosition, TableLastPk};
use crate::proto::binlogdata::{ShardGtid, VEvent, VEventType, VGtid};
use crate::request::{from_proto_lastpk, SelectedTables};
use crate::value::Value;
use ddl::RowsGone;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

type ShardKey = (String, String);
type TableKey = (String, String, String);

/// The table a run of ROW events belongs to, resolved once for the run. In the copy phase VTGate
/// sends one ROW event per row, each naming its keyspace, shard and table: building owned keys
/// and looking the decoder up for every event cost more than the machine's own work per row.
/// The names map to the keys the same way always, so only a new FIELD (a new decoder) drops it.
#[derive(Debug)]
struct RowTarget {
    shard: ShardKey,
    key: TableKey,
    decoder: Arc<RowDecoder>,
}

impl RowTarget {
    /// Whether a ROW event naming these (as [`row_name_bytes`] reads them) is of this target.
    fn names(&self, keyspace: &[u8], shard: &[u8], table: &[u8]) -> bool {
        self.key.2.as_bytes() == table
            && self.shard.1.as_bytes() == shard
            && self.shard.0.as_bytes() == keyspace
    }
}

#[derive(Debug, Clone)]
struct ShardTrack {
    /// Last committed position (what the consumer last saw in a Mark, or the start position).
    pos: ShardPosition,
    /// Change events handed out since the last mark (non-zero only inside a chunked transaction).
    emitted_since_mark: u64,
    /// After a reconnect: change events of the replayed transaction to drop (already emitted).
    skip: u64,
    /// Tables of `pos` with a done mark, read once per position change: copy rows are checked
    /// against it one by one, and decoding lastpks per row would cost the copy's hot path.
    done_tables: BTreeSet<String>,
}

impl ShardTrack {
    fn new(pos: ShardPosition) -> ShardTrack {
        ShardTrack {
            done_tables: done_tables(&pos),
            pos,
            emitted_since_mark: 0,
            skip: 0,
        }
    }

    fn set_pos(&mut self, pos: ShardPosition) {
        self.done_tables = done_tables(&pos);
        self.pos = pos;
    }
}

fn done_tables(pos: &ShardPosition) -> BTreeSet<String> {
    pos.table_p_ks
        .iter()
        .filter(|t| copyfilter::lastpk_kind(&t.lastpk) == copyfilter::LastPkKind::Done)
        .map(|t| t.table_name.clone())
        .collect()
}

#[derive(Debug, Default)]
struct Txn {
    shard: Option<ShardKey>,
    events: Vec<Event>,
    bytes: usize,
    /// Pending tables whose copy FIELD arrived in this transaction (their copy starts).
    copy_started: BTreeSet<String>,
    /// Pending tables found finished in this transaction: a change of one arrived after its
    /// copy had started in an earlier transaction, so its copy (of no row) is over.
    copy_finished: BTreeSet<String>,
}

/// The copied range of one in-progress table, kept while its lastpk and schema stay the same.
struct CachedRange {
    lastpk: Vec<u8>,
    schema: Arc<TableSchema>,
    range: CopiedRange,
}

/// Options of the machine that come from [`crate::StreamOptions`].
#[derive(Debug, Clone)]
pub struct MachineConfig {
    pub allow_tables_without_primary_key: bool,
    /// Emit a transaction in chunks once its buffered events exceed this many bytes.
    pub transaction_buffer_bytes: usize,
    /// End the stream after the final COPY_COMPLETED.
    pub snapshot_only: bool,
    /// Follow VTGate's reshard transition (new shards join this stream) instead of stopping each
    /// shard at its journal ([`crate::StreamOptions::follow_reshard`]).
    pub follow_reshard: bool,
    /// The selection names its columns (`columns`): a table whose FIELD event shows no key may
    /// have one that the selection left out, which is what the error then says.
    pub narrowed_selection: bool,
    /// The selected tables: DDL events come for every table of the keyspace.
    pub selected: SelectedTables,
    /// DDL that takes a selected table's rows away or changes its key.
    pub destructive_ddl: DestructiveDdl,
}

pub struct Machine {
    config: MachineConfig,
    shards: BTreeMap<ShardKey, ShardTrack>,
    txn: Option<Txn>,
    pending_vgtid: Option<VGtid>,
    decoders: HashMap<TableKey, Arc<RowDecoder>>,
    /// The last ROW event's table ([`RowTarget`]).
    row_target: Option<Arc<RowTarget>>,
    /// Rows copied since the metrics were last told, with their table: counted per run of ROW
    /// events and added at the next commit or change of table (a lock per event otherwise).
    copied_unreported: Option<(Arc<RowTarget>, u64)>,
    /// Events of the last transaction: the next one's buffer starts this large, so that a copy
    /// batch of thousands of rows does not grow it step by step.
    last_txn_events: usize,
    /// Shapes including those still buffered in an open transaction.
    latest: HashMap<TableKey, Arc<TableSchema>>,
    /// Shapes the consumer has actually received.
    announced: HashMap<TableKey, Arc<TableSchema>>,
    /// follow_reshard: shards that reached a reshard journal, dropped once a VGTID no longer
    /// lists them.
    journaled: BTreeSet<ShardKey>,
    /// Not following reshards: shards that ended at their journal. Their later events (the rest
    /// of the journal transaction, anything VTGate still sends) are dropped.
    ended: BTreeSet<ShardKey>,
    /// Journals that ended a shard so far (the stream restarts the others after one).
    journals_seen: u64,
    /// Per shard: pending tables whose copy started in this connection (committed FIELDs).
    copy_started: BTreeMap<ShardKey, BTreeSet<String>>,
    ranges: HashMap<TableKey, CachedRange>,
    /// Tables already warned about an order the core cannot reproduce.
    inexact_warned: BTreeSet<TableKey>,
    finished: bool,
    metrics: Arc<Metrics>,
    /// Collations of text columns VTGate announces with collation 0 ([`crate::collations`]).
    collations: Arc<crate::collations::ColumnCollations>,
}

impl Machine {
    pub fn new(config: MachineConfig, start: Vec<ShardPosition>, metrics: Arc<Metrics>) -> Self {
        let shards = start
            .into_iter()
            .map(|pos| {
                (
                    (pos.keyspace.clone(), pos.shard.clone()),
                    ShardTrack::new(pos),
                )
            })
            .collect();
        Machine {
            config,
            shards,
            txn: None,
            pending_vgtid: None,
            decoders: HashMap::new(),
            row_target: None,
            copied_unreported: None,
            last_txn_events: 0,
            latest: HashMap::new(),
            announced: HashMap::new(),
            journaled: BTreeSet::new(),
            ended: BTreeSet::new(),
            journals_seen: 0,
            copy_started: BTreeMap::new(),
            ranges: HashMap::new(),
            inexact_warned: BTreeSet::new(),
            finished: false,
            metrics,
            collations: Arc::default(),
        }
    }

    /// The collations of the text columns VTGate announces without one (read when the stream
    /// opens, [`crate::collations::read`]).
    pub fn set_column_collations(&mut self, collations: crate::collations::ColumnCollations) {
        self.collations = Arc::new(collations);
    }

    /// True after [`Event::End`] was produced (snapshot-only mode).
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// The committed position of every shard (what a reconnect resumes from).
    pub fn positions(&self) -> StreamPosition {
        StreamPosition {
            shards: self.shards.values().map(|s| s.pos.clone()).collect(),
        }
    }

    pub fn shard_positions(&self) -> Vec<ShardPosition> {
        self.shards.values().map(|s| s.pos.clone()).collect()
    }

    /// Shards that ended at a reshard journal (not following reshards).
    pub fn ended_shards(&self) -> &BTreeSet<ShardKey> {
        &self.ended
    }

    /// How many reshard journals ended a shard of this stream so far.
    pub fn journals_seen(&self) -> u64 {
        self.journals_seen
    }

    /// Whether every shard finished its copy phase (or never needed one).
    pub fn all_copied(&self) -> bool {
        self.shards.values().all(|s| !s.pos.needs_copy())
    }

    /// Forgets everything not committed: the stream is about to be re-requested from
    /// [`Machine::positions`]. A partially emitted (chunked) transaction will be replayed by the
    /// server; its already-emitted changes are skipped.
    pub fn on_reconnect(&mut self) {
        self.report_copied_rows();
        // A copy cut by the server (the rowstreamer's --vreplication-copy-phase-duration, errno
        // 3024, a DBA's query killer) or by the network resumes from each table's last primary
        // key in the marks: counted, so that cuts a copy survives are visible.
        let copying: Vec<String> = self
            .shards
            .iter()
            .filter(|(_, t)| !t.pos.copy_completed)
            .map(|((ks, shard), t)| {
                let table = t
                    .pos
                    .table_p_ks
                    .iter()
                    .find(|t| copyfilter::lastpk_kind(&t.lastpk) == copyfilter::LastPkKind::Key)
                    .map_or_else(
                        || "(next table)".to_string(),
                        |lastpk| lastpk.table_name.clone(),
                    );
                format!("{ks}/{shard} {table}")
            })
            .collect();
        if !copying.is_empty() {
            self.metrics.record_copy_resume();
            tracing::info!(copying = %copying.join(", "), "a copy was cut; it resumes from each table's last primary key");
        }
        self.txn = None;
        self.pending_vgtid = None;
        self.latest = self.announced.clone();
        // A new RPC plans the copy again: a table's copy has started only once its FIELD comes.
        self.copy_started.clear();
        for track in self.shards.values_mut() {
            track.skip = track.emitted_since_mark;
        }
    }

    /// Processes one VEvent, appending consumer events to `out`.
    pub fn handle(&mut self, ev: VEvent, out: &mut Vec<Event>) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        // A ROW event of the last ROW event's table (every row of a copy batch): its target, found
        // once here for both the shard check and the row's decoding. Its names equal the
        // target's, so they are text; any other event's names are checked.
        let cached_target = ev
            .row_event
            .as_ref()
            .and_then(|re| self.cached_row_target(&ev, re));
        if cached_target.is_none() {
            check_names_are_text(&ev)?;
        }
        // The shard of the last ROW event is read (checked when it became the target).
        if !self.config.follow_reshard && cached_target.is_none() {
            if let Some((keyspace, shard)) = any_event_shard(&ev) {
                let known = self
                    .row_target
                    .as_ref()
                    .is_some_and(|t| t.shard.0 == keyspace && t.shard.1 == shard);
                if !known {
                    let key = (keyspace.to_string(), shard.to_string());
                    if !self.shards.contains_key(&key) {
                        // A shard this stream does not read: one that ended at its journal, or a
                        // new shard of VTGate's own reshard transition (read by another stream,
                        // later).
                        if !self.ended.contains(&key) {
                            tracing::debug!(keyspace = %key.0, shard = %key.1, "dropping an event of a shard this stream does not read");
                        }
                        return Ok(());
                    }
                }
            }
        }
        self.metrics.record_lag(ev.timestamp, ev.current_time);
        let ty = VEventType::try_from(ev.r#type).unwrap_or(VEventType::Unknown);
        match ty {
            // A second BEGIN before COMMIT happens for empty tables in the copy phase: keep the
            // open transaction (and whatever it buffered), i.e. only open one if none is open.
            VEventType::Begin if self.txn.is_none() => {
                self.txn = Some(self.new_txn(event_shard(&ev)));
            }
            VEventType::Field => self.on_field(&ev, out)?,
            VEventType::Row => self.on_row(&ev, cached_target, out)?,
            VEventType::Vgtid => {
                // Two VGTIDs in one copy transaction (snapshot position, then lastpk): keep the latest.
                self.pending_vgtid = ev.vgtid;
            }
            VEventType::Commit => self.on_commit(event_shard(&ev), out)?,
            VEventType::Rollback => {
                self.txn = None;
                self.pending_vgtid = None;
            }
            VEventType::Ddl => {
                let key = event_shard(&ev);
                let (keyspace, shard) = key.clone().unwrap_or_default();
                self.check_ddl(&keyspace, &shard, &ev.statement)?;
                out.push(Event::Ddl {
                    keyspace,
                    shard,
                    statement: ev.statement,
                    commit_ts_millis: ev.timestamp * 1000,
                });
                self.apply_vgtid(key.as_ref(), None, out)?;
            }
            VEventType::Other => {
                let key = event_shard(&ev);
                self.apply_vgtid(key.as_ref(), None, out)?;
            }
            // Inside a (chunked) transaction a heartbeat is not a boundary: it falls through to
            // the ignored events below.
            VEventType::Heartbeat if self.txn.is_none() => {
                out.push(Event::Heartbeat {
                    timestamp_millis: ev.timestamp * 1000,
                });
            }
            VEventType::CopyCompleted => self.on_copy_completed(&ev, out),
            VEventType::Journal => self.on_journal(&ev, out)?,
            // GTID and LASTPK are folded into VGTIDs by VTGate; VERSION, SAVEPOINT,
            // PREVIOUS_GTIDS, ROWS_QUERY carry nothing for a consumer; statement-based
            // INSERT/UPDATE/… only come from external non-RBR sources.
            _ => {}
        }
        Ok(())
    }

    /// DDL that takes a selected table's rows away without a row event: the consumer would keep
    /// them silently, so the stream stops ([`DestructiveDdl::Fail`]) or says so and goes on.
    fn check_ddl(&self, keyspace: &str, shard: &str, statement: &str) -> Result<()> {
        for effect in ddl::tables_losing_rows(statement, |t| self.config.selected.contains(t)) {
            if !self.config.selected.contains(&effect.table) {
                continue;
            }
            let table = &effect.table;
            let what = match &effect.effect {
                RowsGone::Truncated => "truncated it: every row is gone, and no row event says so".to_string(),
                RowsGone::Dropped => "dropped it: its rows are gone (a table created again under the name starts empty), and no row event says so".to_string(),
                // Vitess's online DROP (ddl_strategy vitess/online) renames the table into its
                // garbage collection (`_vt_hld_…`, `_vt_prg_…`) before it is purged.
                RowsGone::RenamedTo(new) if new.starts_with("_vt_") => format!(
                    "dropped it (Vitess's online DROP renamed it to '{new}' for its table garbage collection): \
                     its rows are gone, and no row event says so"
                ),
                RowsGone::RenamedTo(new) => format!("renamed it to '{new}': its rows live on under a name this stream does not read"),
                RowsGone::Unreadable => "may have removed its rows (the connector could not read the statement)".to_string(),
            };
            self.destructive(
                keyspace,
                shard,
                table,
                format!("DDL `{}` on {keyspace}/{shard} {what}", statement.trim()),
            )?;
        }
        Ok(())
    }

    /// Stops on DDL that changed what the consumer holds, or warns and goes on.
    fn destructive(&self, keyspace: &str, shard: &str, table: &str, what: String) -> Result<()> {
        match self.config.destructive_ddl {
            DestructiveDdl::Continue => {
                tracing::warn!(%keyspace, %shard, %table, "{what}; going on (destructive_ddl = continue): the consumer keeps the rows it had");
                Ok(())
            }
            DestructiveDdl::Fail => Err(Error::config(format!(
                "table '{keyspace}.{table}': {what}. The consumer still holds the rows it had, which the table no \
                 longer has: empty or rebuild the consumer's copy and start the job again with a snapshot (SQL \
                 'scan.startup.mode' = 'initial'), or, to keep those rows and go on from here, restore the job with \
                 destructive DDL accepted (SQL 'scan.destructive-ddl' = 'continue', builder destructiveDdl(CONTINUE), \
                 native option destructive_ddl)"
            ))
            .with_code(ErrorCode::DestructiveDdl)),
        }
    }

    fn on_field(&mut self, ev: &VEvent, out: &mut Vec<Event>) -> Result<()> {
        let Some(fe) = &ev.field_event else {
            return Err(Error::fatal("malformed FIELD event: no field_event"));
        };
        if fe.is_internal_table {
            return Ok(());
        }
        let (keyspace, shard) = first_non_empty(&fe.keyspace, &fe.shard, ev);
        let (keyspace, shard) = (keyspace.to_string(), shard.to_string());
        let table = bare_table_name(&keyspace, &fe.table_name).to_string();
        let key = (keyspace.clone(), shard.clone(), table.clone());
        let previous = self.latest.get(&key).cloned();
        let mut candidate = schema_from_field_event(fe, &keyspace, &shard, 0);
        crate::collations::fill(&mut candidate, &self.collations);
        if candidate.primary_key_indexes().is_empty()
            && !self.config.allow_tables_without_primary_key
        {
            return Err(if self.config.narrowed_selection {
                // The plan adds every key column to a narrowed selection: a key missing here is
                // one that changed after the stream was planned (ALTER TABLE … PRIMARY KEY).
                Error::config(format!(
                    "the selected columns of table '{keyspace}.{table}' ({}) hold no primary-key column: updates and \
                     deletes cannot be matched to rows — if the table's primary key changed while the job ran, \
                     restart the job so that it selects the new key columns; if the table has no key, add one or \
                     set allow_tables_without_primary_key",
                    candidate.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
                ))
            } else {
                Error::config(format!(
                    "table '{keyspace}.{table}' has no primary key: updates and deletes cannot be matched to rows — \
                     add a primary key, leave the table out of the selection, or set allow_tables_without_primary_key"
                ))
            }
            .with_code(ErrorCode::NoPrimaryKey));
        }
        if let Some(prev) = &previous {
            let (before, after) = (key_names(prev), key_names(&candidate));
            if before != after {
                self.destructive(
                    &keyspace,
                    &shard,
                    &table,
                    format!(
                        "its primary key changed from ({}) to ({}): the consumer's rows are keyed by the old key, so \
                         changes matched by the new one would update and delete the wrong rows",
                        before.join(", "),
                        after.join(", ")
                    ),
                )?;
            }
        }
        let schema = match previous {
            Some(prev) if prev.columns == candidate.columns => prev,
            prev => {
                let version = prev.map(|p| p.version + 1).unwrap_or(1);
                let schema = Arc::new(TableSchema {
                    version,
                    ..candidate
                });
                self.latest.insert(key.clone(), schema.clone());
                self.push(Event::Schema(schema.clone()), out);
                schema
            }
        };
        let shard_key = (keyspace, shard);
        if let Some(track) = self.shards.get(&shard_key) {
            if copyfilter::table_copy(&track.pos, &table) == TableCopy::Pending {
                // The copy of a pending table begins with its FIELD (BEGIN, FIELD, VGTID, …).
                if self.txn.is_none() {
                    self.txn = Some(self.new_txn(Some(shard_key.clone())));
                }
                let txn = self.txn.as_mut().expect("opened above");
                txn.copy_started.insert(table.clone());
            }
        }
        self.decoders.insert(
            key,
            Arc::new(RowDecoder::new(schema, fe.enum_set_string_values)),
        );
        self.row_target = None;
        Ok(())
    }

    fn on_row(
        &mut self,
        ev: &VEvent,
        cached_target: Option<Arc<RowTarget>>,
        out: &mut Vec<Event>,
    ) -> Result<()> {
        let Some(re) = &ev.row_event else {
            return Err(Error::fatal("malformed ROW event: no row_event"));
        };
        if re.is_internal_table {
            return Ok(());
        }
        let target = match cached_target {
            Some(target) => target,
            None => self.row_target(ev, re)?,
        };
        let (shard_key, key) = (&target.shard, &target.key);
        let (keyspace, table) = (&key.0, key.2.as_str());
        let decoder = &*target.decoder;
        let schema = decoder.schema.clone();
        let is_snapshot = ev.timestamp == 0;
        // Which of this table's rows the copy has delivered so far (None: all of them count).
        // One lookup of the shard's track for a row (a copy sends a ROW event per row).
        let track = self.shards.get(shard_key);
        let skip_before = track.map_or(0, |t| t.skip);
        let bounded = if is_snapshot {
            if let Some(track) = track {
                check_copy_rows(track, shard_key, table)?;
            }
            false
        } else {
            self.prepare_copied_range(shard_key, table, &schema)?
        };
        // Borrowed, not cloned: this runs for every change while a shard copies.
        let copied = bounded.then(|| &self.ranges[key].range);
        let delivered = |values: &Vec<Value>| copied.as_ref().is_none_or(|r| r.contains(values));
        let commit_ts_millis = ev.timestamp * 1000;
        // One allocation per ROW event, shared by its changes (the chunked snapshot's merge
        // tests each change's transaction against a chunk's snapshot GTID set).
        let gtid: Option<Arc<str>> =
            (!ev.event_gtid.is_empty()).then(|| Arc::from(ev.event_gtid.as_str()));
        // Inline for the copy's one row per event; an update makes two.
        let mut changes: smallvec::SmallVec<[ChangeEvent; 2]> =
            smallvec::SmallVec::with_capacity(re.row_changes.len());
        for rc in &re.row_changes {
            if rc.json_partial_values.as_ref().is_some_and(bitmap_any) {
                return Err(Error::fatal(format!(
                    "table {keyspace}.{table}: the binlog carries partial JSON updates \
                     (binlog_row_value_options=PARTIAL_JSON), which cannot be turned into full rows — \
                     set binlog_row_value_options='' on the MySQL servers"
                )));
            }
            let before = rc
                .before
                .as_ref()
                .map(|r| decoder.decode(r, None))
                .transpose()?;
            let after = rc
                .after
                .as_ref()
                .map(|r| decoder.decode(r, rc.data_columns.as_ref()))
                .transpose()?;
            let change = |kind, values| ChangeEvent {
                schema: schema.clone(),
                kind,
                values,
                commit_ts_millis,
                is_snapshot,
                gtid: gtid.clone(),
            };
            // A row beyond the copy position does not exist downstream yet (the copy sends it
            // later): its changes are dropped, and an update moving a key across the copy
            // position becomes the delete or the insert of the side already copied.
            match (before, after) {
                (None, Some(a)) if delivered(&a) => changes.push(change(RowKind::Insert, a)),
                (Some(b), None) if delivered(&b) => changes.push(change(RowKind::Delete, b)),
                (Some(b), Some(a)) => match (delivered(&b), delivered(&a)) {
                    // An update that changes the primary key is the delete of the old key and
                    // the insert of the new one: -U/+U pairs are per key, and an upsert sink,
                    // which drops -U, would otherwise keep the old key forever.
                    (true, true) if !same_key(&schema, &b, &a) => {
                        changes.push(change(RowKind::Delete, b));
                        changes.push(change(RowKind::Insert, a));
                    }
                    (true, true) => {
                        changes.push(change(RowKind::UpdateBefore, b));
                        changes.push(change(RowKind::UpdateAfter, a));
                    }
                    (true, false) => changes.push(change(RowKind::Delete, b)),
                    (false, true) => changes.push(change(RowKind::Insert, a)),
                    (false, false) => {}
                },
                (None, None) => return Err(Error::fatal(format!("malformed ROW event for {keyspace}.{table}: a row change with neither before nor after image"))),
                _ => {}
            }
        }
        if is_snapshot {
            self.count_copied_rows(&target, re.row_changes.len() as u64);
        }
        match self.txn.as_mut() {
            Some(txn) => {
                txn.shard.get_or_insert_with(|| shard_key.clone());
            }
            None => self.txn = Some(self.new_txn(Some(shard_key.clone()))),
        }
        let mut skip = skip_before;
        for change in changes {
            if skip > 0 {
                // Already emitted before the reconnect (chunked transaction replay).
                skip -= 1;
                continue;
            }
            self.push(Event::Change(change), out);
        }
        if skip != skip_before {
            if let Some(track) = self.shards.get_mut(shard_key) {
                track.skip = skip;
            }
        }
        Ok(())
    }

    /// The last ROW event's [`RowTarget`] when this ROW event names the same table.
    fn cached_row_target(
        &self,
        ev: &VEvent,
        re: &crate::proto::binlogdata::RowEvent,
    ) -> Option<Arc<RowTarget>> {
        let target = self.row_target.as_ref()?;
        let (keyspace, shard, table) = row_name_bytes(ev, re);
        target.names(keyspace, shard, table).then(|| target.clone())
    }

    /// The [`RowTarget`] of a ROW event: the last one when the event names the same table.
    fn row_target(
        &mut self,
        ev: &VEvent,
        re: &crate::proto::binlogdata::RowEvent,
    ) -> Result<Arc<RowTarget>> {
        let (keyspace, shard, table) = row_names(ev, re);
        if let Some(target) = &self.row_target {
            if target.names(keyspace.as_bytes(), shard.as_bytes(), table.as_bytes()) {
                return Ok(target.clone());
            }
        }
        let key = (keyspace.to_string(), shard.to_string(), table.to_string());
        let Some(decoder) = self.decoders.get(&key) else {
            return Err(Error::fatal(format!(
                "ROW event for {keyspace}.{table} (shard {shard}) without a preceding FIELD event: \
                 VTGate sent the events out of order and the row cannot be decoded; the stream stops \
                 before this transaction's position — restart from the last checkpoint, and report \
                 it with the Vitess version if it repeats"
            )));
        };
        let target = Arc::new(RowTarget {
            shard: (key.0.clone(), key.1.clone()),
            decoder: decoder.clone(),
            key,
        });
        self.row_target = Some(target.clone());
        Ok(target)
    }

    /// An open transaction whose buffer starts as large as the last one's ([`Self::last_txn_events`]).
    fn new_txn(&self, shard: Option<ShardKey>) -> Txn {
        /// A bound on the head start, so that one huge transaction does not make every later
        /// one reserve as much (the buffer still grows as needed).
        const MOST_EVENTS_RESERVED: usize = 1 << 16;
        Txn {
            shard,
            events: Vec::with_capacity(self.last_txn_events.min(MOST_EVENTS_RESERVED)),
            ..Default::default()
        }
    }

    /// Counts copied rows of a table, told to the metrics at the next commit or change of table.
    fn count_copied_rows(&mut self, target: &Arc<RowTarget>, rows: u64) {
        match &mut self.copied_unreported {
            Some((t, n)) if Arc::ptr_eq(t, target) => *n += rows,
            _ => {
                self.report_copied_rows();
                self.copied_unreported = Some((target.clone(), rows));
            }
        }
    }

    fn report_copied_rows(&mut self) {
        if let Some((target, rows)) = self.copied_unreported.take() {
            self.metrics
                .record_rows_copied(&target.key.0, &target.key.2, rows);
        }
    }

    /// For a change (not a copy row) of `table` on `shard`: whether only the rows the copy has
    /// delivered pass (true: `ranges` now holds the current range of the table) or every change
    /// does (false).
    fn prepare_copied_range(
        &mut self,
        shard: &ShardKey,
        table: &str,
        schema: &Arc<TableSchema>,
    ) -> Result<bool> {
        let Some(track) = self.shards.get(shard) else {
            return Ok(false);
        };
        let lastpk = match copyfilter::table_copy(&track.pos, table) {
            TableCopy::Done | TableCopy::Untracked => return Ok(false),
            TableCopy::Pending => {
                if self
                    .copy_started
                    .get(shard)
                    .is_some_and(|started| started.contains(table))
                {
                    // Its copy started in an earlier transaction and copied no row; a change
                    // now means the copy is over (the tablet sends none while it copies).
                    if let Some(txn) = self.txn.as_mut() {
                        txn.copy_finished.insert(table.to_string());
                    }
                    return Ok(false);
                }
                // The tablet drops changes of tables whose copy has not started. One arriving
                // means the server lost the copy plan (VTGate retried the shard in the window
                // between two tables): resume from the committed position, which still lists
                // the tables to copy.
                return Err(Error::retryable(format!(
                    "VTGate sent a change of {}.{table} on shard {} before copying the table (the copy plan \
                     was lost on the server): resuming the copy from the last position",
                    shard.0, shard.1
                )));
            }
            TableCopy::InProgress(lastpk) => lastpk,
        };
        let key = (shard.0.clone(), shard.1.clone(), table.to_string());
        let fresh = self
            .ranges
            .get(&key)
            .is_some_and(|c| c.lastpk == lastpk && Arc::ptr_eq(&c.schema, schema));
        if !fresh {
            let range = CopiedRange::new(lastpk, schema);
            if let CopiedRange::Unknown(why) = &range {
                if self.inexact_warned.insert(key.clone()) {
                    tracing::warn!(keyspace = %key.0, shard = %key.1, table = %key.2, reason = %why,
                        "a resumed copy may repeat changes of this table: the core cannot reproduce its \
                         primary-key order (declare the table as an upsert changelog)");
                }
            }
            self.ranges.insert(
                key.clone(),
                CachedRange {
                    lastpk: lastpk.to_vec(),
                    schema: schema.clone(),
                    range,
                },
            );
        }
        Ok(true)
    }

    /// Adds an event to the open transaction (emitting a chunk when over budget), or emits it.
    fn push(&mut self, event: Event, out: &mut Vec<Event>) {
        let Some(txn) = self.txn.as_mut() else {
            self.emit(vec![event], None, out);
            return;
        };
        txn.bytes += event.approx_bytes();
        txn.events.push(event);
        if txn.bytes > self.config.transaction_buffer_bytes {
            let events = std::mem::take(&mut txn.events);
            txn.bytes = 0;
            let shard = txn.shard.clone();
            tracing::debug!(
                events = events.len(),
                "emitting a chunk of a large transaction"
            );
            self.emit(events, shard.as_ref(), out);
        }
    }

    /// Hands events to the consumer, remembering what it has seen.
    fn emit(&mut self, events: Vec<Event>, shard: Option<&ShardKey>, out: &mut Vec<Event>) {
        let mut changes = 0u64;
        for e in &events {
            match e {
                Event::Schema(s) => {
                    self.announced.insert(
                        (s.keyspace.clone(), s.shard.clone(), s.table.clone()),
                        s.clone(),
                    );
                }
                Event::Change(_) => changes += 1,
                _ => {}
            }
        }
        if let Some(track) = shard.and_then(|k| self.shards.get_mut(k)) {
            track.emitted_since_mark += changes;
        }
        self.metrics.record_changes(changes);
        if out.is_empty() {
            // A whole copy batch is thousands of events: hand the buffer over, don't copy it.
            *out = events;
        } else {
            out.extend(events);
        }
    }

    fn on_commit(&mut self, commit_shard: Option<ShardKey>, out: &mut Vec<Event>) -> Result<()> {
        self.report_copied_rows();
        let txn = self.txn.take().unwrap_or_default();
        self.last_txn_events = txn.events.len();
        let shard = txn.shard.clone().or(commit_shard);
        self.emit(txn.events, shard.as_ref(), out);
        self.metrics.record_transaction();
        if let Some(key) = &shard {
            if !txn.copy_started.is_empty() {
                self.copy_started
                    .entry(key.clone())
                    .or_default()
                    .extend(txn.copy_started.iter().cloned());
            }
        }
        // BEGIN/COMMIT without VGTID (internal writes, view changes): no position to mark.
        let progress = shard
            .as_ref()
            .map(|k| (k, &txn.copy_started, &txn.copy_finished));
        self.apply_vgtid(shard.as_ref(), progress, out)
    }

    /// Applies the pending VGTID: every shard whose position moved (and the event's own shard)
    /// gets a Mark.
    fn apply_vgtid(
        &mut self,
        own_shard: Option<&ShardKey>,
        progress: Option<(&ShardKey, &BTreeSet<String>, &BTreeSet<String>)>,
        out: &mut Vec<Event>,
    ) -> Result<()> {
        let Some(vgtid) = self.pending_vgtid.take() else {
            return Ok(());
        };
        let none = BTreeSet::new();
        // Only needed to retire journaled shards, which are rare: not built per VGTID otherwise.
        let listed: Option<BTreeSet<ShardKey>> = if self.journaled.is_empty() {
            None
        } else {
            Some(
                vgtid
                    .shard_gtids
                    .iter()
                    .map(shard_gtid_key)
                    .collect::<Result<_>>()?,
            )
        };
        let unmoved = self.unmoved_shards(&vgtid.shard_gtids, own_shard);
        for (sg, unmoved) in vgtid.shard_gtids.iter().zip(unmoved) {
            if unmoved {
                continue;
            }
            let key = shard_gtid_key(sg)?;
            if !self.config.follow_reshard && !self.shards.contains_key(&key) {
                // VGTIDs list every shard of VTGate's stream, including shards that ended here
                // and new shards of a reshard: only this stream's shards move.
                continue;
            }
            let track = self.shards.entry(key.clone()).or_insert_with(|| {
                // A shard we did not start: a reshard target, which starts without copy.
                ShardTrack::new(ShardPosition {
                    keyspace: key.0.clone(),
                    shard: key.1.clone(),
                    gtid: String::new(),
                    table_p_ks: Vec::new(),
                    tables_to_copy: Vec::new(),
                    copy_completed: true,
                    snapshots: Vec::new(),
                })
            });
            let old = &track.pos;
            let vtgate_pks: Vec<TableLastPk> =
                sg.table_p_ks.iter().map(from_proto_lastpk).collect();
            let (table_p_ks, tables_to_copy) = if old.copy_completed {
                (vtgate_pks, Vec::new())
            } else {
                let (started, finished) = match progress {
                    Some((shard, started, finished)) if *shard == key => (started, finished),
                    _ => (&none, &none),
                };
                let latest = &self.latest;
                copyfilter::merge_progress(old, &vtgate_pks, started, finished, |table| {
                    latest
                        .get(&(key.0.clone(), key.1.clone(), table.to_string()))
                        .cloned()
                })
            };
            let new = ShardPosition {
                keyspace: key.0.clone(),
                shard: key.1.clone(),
                gtid: vgtid_text(&sg.gtid)?.to_string(),
                table_p_ks,
                tables_to_copy,
                copy_completed: old.copy_completed,
                snapshots: Vec::new(),
            };
            if new != track.pos || own_shard == Some(&key) {
                track.set_pos(new.clone());
                track.emitted_since_mark = 0;
                track.skip = 0;
                out.push(Event::Mark(new));
            }
        }
        let Some(listed) = listed else {
            return Ok(());
        };
        let gone: Vec<ShardKey> = self
            .journaled
            .iter()
            .filter(|k| !listed.contains(*k))
            .cloned()
            .collect();
        for k in gone {
            self.journaled.remove(&k);
            self.shards.remove(&k);
        }
        self.row_target = None;
        Ok(())
    }

    /// Which of a VGTID's shards did not move: a tracked shard, not `own_shard`, past its copy,
    /// whose position already has exactly this GTID and nothing else — the general path of
    /// [`Self::apply_vgtid`] would build its new position only to find it equal and emit
    /// nothing. A stream of N shards gets a VGTID listing all N after every transaction of one
    /// of them; this finds the N − 1 others by comparing bytes, without allocating (and without
    /// reading them as text: bytes equal to a position's text are text).
    ///
    /// Walks the VGTID and the (sorted) shard map side by side, so it needs the VGTID in key
    /// order, as VTGate keeps the order of the request built from that map; in any other order
    /// every shard takes the general path.
    fn unmoved_shards(
        &self,
        listed: &[ShardGtid],
        own_shard: Option<&ShardKey>,
    ) -> smallvec::SmallVec<[bool; 64]> {
        let mut unmoved = smallvec::SmallVec::from_elem(false, listed.len());
        fn key(sg: &ShardGtid) -> (&[u8], &[u8]) {
            (&sg.keyspace, &sg.shard)
        }
        if !listed.windows(2).all(|w| key(&w[0]) < key(&w[1])) {
            return unmoved;
        }
        let own = own_shard.map(|(k, s)| (k.as_bytes(), s.as_bytes()));
        let mut tracks = self.shards.iter().peekable();
        for (i, sg) in listed.iter().enumerate() {
            let wanted = key(sg);
            while tracks
                .next_if(|((k, s), _)| (k.as_bytes(), s.as_bytes()) < wanted)
                .is_some()
            {}
            let Some(((k, s), track)) = tracks.peek() else {
                break;
            };
            if (k.as_bytes(), s.as_bytes()) != wanted || own == Some(wanted) {
                continue;
            }
            let pos = &track.pos;
            unmoved[i] = pos.copy_completed
                && pos.gtid.as_bytes() == sg.gtid
                && sg.table_p_ks.is_empty()
                && pos.table_p_ks.is_empty()
                && pos.tables_to_copy.is_empty()
                && pos.snapshots.is_empty();
        }
        unmoved
    }

    fn on_copy_completed(&mut self, ev: &VEvent, out: &mut Vec<Event>) {
        if ev.keyspace.is_empty() && ev.shard.is_empty() {
            tracing::info!("copy phase completed on all shards");
            out.push(Event::CopyCompleted);
            if self.config.snapshot_only {
                out.push(Event::End);
                self.finished = true;
            }
            return;
        }
        let (keyspace, shard) = (text(&ev.keyspace), text(&ev.shard));
        tracing::info!(keyspace, shard, "copy phase completed on shard");
        out.push(Event::ShardCopyCompleted {
            keyspace: keyspace.to_string(),
            shard: shard.to_string(),
        });
        if let Some(track) = self
            .shards
            .get_mut(&(keyspace.to_string(), shard.to_string()))
        {
            track.pos.copy_completed = true;
            track.pos.tables_to_copy.clear();
            track.pos.table_p_ks.clear();
            track.done_tables.clear();
            out.push(Event::Mark(track.pos.clone()));
        }
    }

    fn on_journal(&mut self, ev: &VEvent, out: &mut Vec<Event>) -> Result<()> {
        let Some(j) = &ev.journal else { return Ok(()) };
        // MigrationType TABLES (MoveTables) does not change this keyspace's shards.
        if j.migration_type != crate::proto::binlogdata::MigrationType::Shards as i32 {
            return Ok(());
        }
        let ended: Vec<(String, String)> = j
            .participants
            .iter()
            .map(|p| (p.keyspace.clone(), p.shard.clone()))
            .collect();
        let started: Vec<ShardPosition> = j
            .shard_gtids
            .iter()
            .map(|sg| {
                let (keyspace, shard) = shard_gtid_key(sg)?;
                Ok(ShardPosition {
                    keyspace,
                    shard,
                    gtid: vgtid_text(&sg.gtid)?.to_string(),
                    table_p_ks: Vec::new(),
                    tables_to_copy: Vec::new(),
                    copy_completed: true,
                    snapshots: Vec::new(),
                })
            })
            .collect::<Result<_>>()?;
        // The shard whose stream carries the journal; VTGate names it on the event. Without a
        // name, the one participant this stream reads (and still reads) is the one.
        let named = event_shard(ev).map(|(keyspace, shard)| {
            if keyspace.is_empty() {
                // a shard name alone: the participant of that name
                ended
                    .iter()
                    .find(|k| k.1 == shard)
                    .cloned()
                    .unwrap_or((keyspace, shard))
            } else {
                (keyspace, shard)
            }
        });
        let shard = named.or_else(|| {
            let mine: Vec<&ShardKey> = ended
                .iter()
                .filter(|k| self.shards.contains_key(*k) && !self.journaled.contains(*k))
                .collect();
            (mine.len() == 1).then(|| mine[0].clone())
        });
        let Some(shard) = shard else {
            tracing::warn!(
                ?ended,
                "a reshard journal without a shard this stream reads: ignored"
            );
            return Ok(());
        };
        tracing::info!(id = j.id, keyspace = %shard.0, shard = %shard.1, ?ended, started = ?started.iter().map(|p| &p.shard).collect::<Vec<_>>(), "reshard journal");
        let journal = Event::Journal {
            id: j.id,
            shard: shard.clone(),
            ended: ended.clone(),
            started,
        };
        if self.config.follow_reshard {
            for k in &ended {
                self.journaled.insert(k.clone());
            }
            self.push(journal, out);
            return Ok(());
        }
        // The shard ends here: whatever its journal transaction buffered (nothing, normally)
        // goes out first, then the journal and the shard's final mark — its last committed
        // position, from which a resume would meet this journal again.
        if let Some(txn) = self.txn.take() {
            self.emit(txn.events, Some(&shard), out);
        }
        self.pending_vgtid = None;
        // The last ROW event's shard may be this one: it must be looked up again.
        self.row_target = None;
        let Some(track) = self.shards.remove(&shard) else {
            return Ok(());
        };
        self.ended.insert(shard);
        self.journals_seen += 1;
        out.push(journal);
        out.push(Event::Mark(track.pos));
        Ok(())
    }
}

/// Copy rows for a table whose copy this shard already finished: VTGate re-copies it. That
/// happens when VTGate retries a tablet stream by itself (its retry forgets finished tables),
/// and the tablet then also dropped the table's changes since the retry, so the stream can no
/// longer be made exact from here; it must go back to an earlier position.
fn check_copy_rows(track: &ShardTrack, shard: &ShardKey, table: &str) -> Result<()> {
    if !track.pos.copy_completed && track.done_tables.contains(table) {
        return Err(Error::fatal(format!(
            "VTGate is copying table {}.{table} again on shard {}, whose copy had finished: it retried the \
             shard's tablet stream by itself and forgot the finished tables, so changes of the table since \
             then were not sent — restart from the last checkpoint (a Flink job does this on its own with a \
             restart strategy; with the CLI, resume from the last saved position)",
            shard.0, shard.1
        )).with_code(ErrorCode::CopyRepeated));
    }
    Ok(())
}

/// Whether two images of a row have the same primary key. A key column absent from an image
/// (a partial row image) counts as unchanged.
fn same_key(schema: &TableSchema, before: &[Value], after: &[Value]) -> bool {
    schema.columns.iter().enumerate().all(|(i, c)| {
        !c.primary_key
            || matches!(after.get(i), None | Some(Value::Absent))
            || before.get(i) == after.get(i)
    })
}

fn event_shard(ev: &VEvent) -> Option<ShardKey> {
    (!ev.keyspace.is_empty() || !ev.shard.is_empty())
        .then(|| (text(&ev.keyspace).to_string(), text(&ev.shard).to_string()))
}

/// The names an event carries are `bytes` in ../../proto (`string` in Vitess's own file), so
/// that prost hands them over as slices of the received message instead of a String each; they
/// must still be text, checked here (for every event but a ROW event of the cached target, whose
/// names equal its text), which stops the stream as prost's own check of a `string` field would.
fn check_names_are_text(ev: &VEvent) -> Result<()> {
    let row = ev.row_event.as_ref();
    let names = [
        Some(&ev.keyspace),
        Some(&ev.shard),
        row.map(|re| &re.keyspace),
        row.map(|re| &re.shard),
        row.map(|re| &re.table_name),
    ];
    for name in names.into_iter().flatten() {
        utf8(name, "an event whose keyspace, shard or table name")?;
    }
    Ok(())
}

/// A VGTID entry's keyspace and shard as text: `bytes` in ../../proto like an event's names
/// ([`check_names_are_text`]), read as text only for the entries that moved.
fn shard_gtid_key(sg: &ShardGtid) -> Result<ShardKey> {
    Ok((
        vgtid_text(&sg.keyspace)?.to_string(),
        vgtid_text(&sg.shard)?.to_string(),
    ))
}

/// A part of a VGTID entry as text, or the error that stops the stream.
fn vgtid_text(part: &[u8]) -> Result<&str> {
    utf8(part, "a VGTID whose keyspace, shard or GTID set")
}

/// `part` as text, or the error naming `what` VTGate sent (names and positions are text in
/// Vitess, so bytes that are not came from a corrupted stream).
fn utf8<'a>(part: &'a [u8], what: &str) -> Result<&'a str> {
    std::str::from_utf8(part).map_err(|_| not_utf8(part, what))
}

/// The error of [`utf8`], out of line: every event passes through the check.
#[cold]
#[inline(never)]
fn not_utf8(part: &[u8], what: &str) -> Error {
    Error::fatal(format!(
        "VTGate sent {what} is not UTF-8 ({:?}): Vitess's names and positions are text, so the \
         stream was corrupted on its way; check what runs between the connector and VTGate (a \
         proxy, a load balancer) and restart from the last checkpoint",
        String::from_utf8_lossy(part)
    ))
}

/// A name of an event as text: [`check_names_are_text`] has checked it, so a name is never
/// read as "" here unless it is empty.
fn text(name: &[u8]) -> &str {
    std::str::from_utf8(name).unwrap_or_default()
}

/// The shard an event belongs to: the event's own, or its ROW/FIELD event's. None when the event
/// names no complete shard (VTGate heartbeats, the final COPY_COMPLETED).
fn any_event_shard(ev: &VEvent) -> Option<(&str, &str)> {
    let (keyspace, shard) = if let Some(re) = &ev.row_event {
        first_non_empty(text(&re.keyspace), text(&re.shard), ev)
    } else if let Some(fe) = &ev.field_event {
        first_non_empty(&fe.keyspace, &fe.shard, ev)
    } else {
        (text(&ev.keyspace), text(&ev.shard))
    };
    (!keyspace.is_empty() && !shard.is_empty()).then_some((keyspace, shard))
}

/// The keyspace, shard and (bare) table a ROW event names, as the bytes it carries: what the
/// cached [`RowTarget`] is compared with, without reading them as text first.
fn row_name_bytes<'a>(
    ev: &'a VEvent,
    re: &'a crate::proto::binlogdata::RowEvent,
) -> (&'a [u8], &'a [u8], &'a [u8]) {
    let keyspace = if re.keyspace.is_empty() {
        &ev.keyspace
    } else {
        &re.keyspace
    };
    let shard = if re.shard.is_empty() {
        &ev.shard
    } else {
        &re.shard
    };
    // The `keyspace.` prefix VTGate puts on table names goes, as `bare_table_name` does.
    let table = re
        .table_name
        .strip_prefix(&keyspace[..])
        .and_then(|rest| rest.strip_prefix(b"."))
        .unwrap_or(&re.table_name);
    (keyspace, shard, table)
}

/// The keyspace, shard and (bare) table a ROW event names, as text.
fn row_names<'a>(
    ev: &'a VEvent,
    re: &'a crate::proto::binlogdata::RowEvent,
) -> (&'a str, &'a str, &'a str) {
    let (keyspace, shard, table) = row_name_bytes(ev, re);
    (text(keyspace), text(shard), text(table))
}

/// The keyspace and shard a ROW or FIELD event names, else those of the VEvent around it.
fn first_non_empty<'a>(keyspace: &'a str, shard: &'a str, ev: &'a VEvent) -> (&'a str, &'a str) {
    let ks = if keyspace.is_empty() {
        text(&ev.keyspace)
    } else {
        keyspace
    };
    let sh = if shard.is_empty() {
        text(&ev.shard)
    } else {
        shard
    };
    (ks, sh)
}

/// A table's primary-key column names, in the table's column order.
fn key_names(schema: &TableSchema) -> Vec<&str> {
    schema
        .columns
        .iter()
        .filter(|c| c.primary_key)
        .map(|c| c.name.as_str())
        .collect()
}

#[cfg(test)]
mod tests;
