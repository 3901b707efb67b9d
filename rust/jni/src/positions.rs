// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The position natives of `NativeStream`: Rust is the one owner of positions.
//!
//! Java holds a position only as the core's versioned binary form ([`ShardPosition::to_bytes`])
//! and never parses it. What Java needs to know about one it asks here: its facts
//! (`nativePositionFacts`, the bits of [`vitess_cdc_core::position::facts`]), its JSON rendering
//! for people and logs (`nativePositionJson`), the start plan of a stream (`nativePlanStart`), the
//! check of a user's specific offsets (`nativeCheckSpecificOffsets`), and the conversion of a
//! JSON position that older checkpoints stored as text (`nativePositionFromJson`). Every error is
//! a core error with its code (`INVALID_POSITION` for a bad position), thrown as the matching
//! `VitessCdcException`.

use crate::error::{BridgeError, BridgeResult};
use jni::objects::{JByteArray, JObject, JObjectArray, JString};
use jni::Env;
use vitess_cdc_core::{Error as CoreError, ErrorCode, ShardPosition};

/// The position in a Java `byte[]`, decoded (any readable version).
pub fn decode<'l>(env: &Env<'l>, bytes: &JByteArray<'_>) -> BridgeResult<ShardPosition> {
    if bytes.is_null() {
        return Err(BridgeError::IllegalArgument("position is null".into()));
    }
    Ok(ShardPosition::from_bytes(&env.convert_byte_array(bytes)?)?)
}

/// The start positions `NativeStream.open` got as `byte[][]` (null = none).
pub fn decode_all(
    env: &mut Env<'_>,
    positions: &JObjectArray<'_, JByteArray<'_>>,
) -> BridgeResult<Vec<ShardPosition>> {
    if positions.is_null() {
        return Ok(Vec::new());
    }
    let n = positions.len(env)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        // A frame per element: a stream may start hundreds of shards, more than the 16 local
        // references a native call is guaranteed.
        let p = env.with_local_frame(4, |env| -> BridgeResult<ShardPosition> {
            let element = positions.get_element(env, i)?;
            decode(env, &element)
        })?;
        out.push(p);
    }
    Ok(out)
}

/// One shard position as JSON (`{"keyspace","shard","gtid","table_p_ks","tables_to_copy",
/// "copy_completed"}`), the form `vstream positions` prints: for people and logs only.
pub fn json(position: &ShardPosition) -> BridgeResult<String> {
    serde_json::to_string(position)
        .map_err(|e| CoreError::fatal(format!("cannot render a position as JSON: {e}")).into())
}

/// A position JSON that an older checkpoint stored as text, in the binary form.
pub fn from_saved_json(keyspace: &str, shard: &str, json: &str) -> BridgeResult<Vec<u8>> {
    Ok(ShardPosition::from_saved_json(keyspace, shard, json)?.to_bytes())
}

/// Checks the user's specific offsets without a server (what `nativePlanStart` checks first).
pub fn check_specific_offsets(keyspace: &str, json: &str) -> BridgeResult<()> {
    vitess_cdc_core::position::parse_specific_offsets(keyspace, json)?;
    Ok(())
}

/// The answer of `nativePlanStart`: `Object[]` of pairs `(String shard, byte[] position)` in the
/// plan's order. Pairs rather than a class of ours: the connector's classes may be relocated by
/// shading, `String` and `byte[]` never are.
pub fn plan_start<'l>(
    env: &mut Env<'l>,
    options: &vitess_cdc_core::StreamOptions,
    specific_offsets: Option<&str>,
) -> BridgeResult<JObjectArray<'l>> {
    let planned = vitess_cdc_core::blocking::plan_start(options, specific_offsets)?;
    if let Some(p) = planned.iter().find(|p| p.gtid == "current") {
        return Err(CoreError::fatal(format!(
            "the plan left shard {}/{} at gtid 'current'; it must resolve 'current' to a GTID set",
            p.keyspace, p.shard
        ))
        .with_code(ErrorCode::InvalidPosition)
        .into());
    }
    let array = JObjectArray::<JObject>::new(env, planned.len() * 2, JObject::null())?;
    for (i, p) in planned.iter().enumerate() {
        env.with_local_frame(4, |env| -> BridgeResult<()> {
            let shard = env.new_string(&p.shard)?;
            array.set_element(env, 2 * i, &shard)?;
            let bytes = env.byte_array_from_slice(&p.to_bytes())?;
            array.set_element(env, 2 * i + 1, &bytes)?;
            Ok(())
        })?;
    }
    Ok(array)
}

/// The answer of `nativePositionCopyTables`: `{"started":[..],"not_started":[..]}`, the tables
/// the shard's copy has started (in progress or copied, `table_p_ks`) and not started
/// (`tables_to_copy`), both empty once the copy is done ([`ShardPosition::copy_tables`]). A fact
/// for progress metrics, so Java never reads the position itself.
pub fn copy_tables_json(position: &ShardPosition) -> String {
    let (started, not_started) = position.copy_tables();
    serde_json::json!({ "started": started, "not_started": not_started }).to_string()
}

/// The answer of `nativeCopyEstimates`:
/// `{"tables":["a","b"],"shards":{"-80":{"a":120,"b":null}}}` (rows estimated from table
/// statistics; `null` = the shard's statistics have none for the table).
pub fn copy_estimates_json(estimates: &vitess_cdc_core::stream::CopyEstimates) -> String {
    serde_json::to_string(estimates).unwrap_or_else(|_| r#"{"tables":[],"shards":{}}"#.to_string())
}

/// A Java string argument that must not be null.
pub fn string(env: &mut Env<'_>, s: &JString<'_>, name: &str) -> BridgeResult<String> {
    if s.is_null() {
        return Err(BridgeError::IllegalArgument(format!("{name} is null")));
    }
    Ok(s.try_to_string(env)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_tables_name_started_and_not_started_tables_until_the_copy_is_done() {
        let mut p = ShardPosition {
            keyspace: "customer".into(),
            shard: "-80".into(),
            gtid: "MySQL56/u:1-5".into(),
            table_p_ks: vec![vitess_cdc_core::position::TableLastPk {
                table_name: "a".into(),
                lastpk: vec![1],
            }],
            tables_to_copy: vec!["b".into(), "c".into()],
            copy_completed: false,
            snapshots: Vec::new(),
        };
        assert_eq!(
            copy_tables_json(&p),
            r#"{"not_started":["b","c"],"started":["a"]}"#
        );
        p.copy_completed = true;
        assert_eq!(copy_tables_json(&p), r#"{"not_started":[],"started":[]}"#);
    }

    #[test]
    fn copy_estimates_render_tables_and_rows_per_shard() {
        let mut rows = vitess_cdc_core::client::TableRowEstimates::new();
        rows.insert("a".into(), Some(120));
        rows.insert("b".into(), None);
        let estimates = vitess_cdc_core::stream::CopyEstimates {
            tables: vec!["a".into(), "b".into()],
            shards: [("-80".to_string(), rows)].into_iter().collect(),
        };
        assert_eq!(
            copy_estimates_json(&estimates),
            r#"{"tables":["a","b"],"shards":{"-80":{"a":120,"b":null}}}"#
        );
    }

    #[test]
    fn saved_json_converts_to_the_same_bytes_as_the_core_writes() {
        let p = ShardPosition {
            keyspace: "customer".into(),
            shard: "-80".into(),
            gtid: "MySQL56/u:1-5".into(),
            table_p_ks: vec![],
            tables_to_copy: vec!["t".into()],
            copy_completed: false,
            snapshots: Vec::new(),
        };
        let text = serde_json::to_string(&p).unwrap();
        assert_eq!(
            from_saved_json("customer", "-80", &text).unwrap(),
            p.to_bytes()
        );
        assert_eq!(
            ShardPosition::from_bytes(
                &from_saved_json("customer", "-80", &json(&p).unwrap()).unwrap()
            )
            .unwrap(),
            p
        );
    }
}
