// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The answer of `NativeStream.nativeKeyOrders`: which selected tables have a primary-key order
//! the core reproduces exactly (so their changelog stays exact while a copy resumes), and for the
//! others the column and the reason. Java (`io.vitesscdc.nativeio.KeyOrders`) declares each
//! table's changelog mode from it before any VStream is opened.
//!
//! ```json
//! {"tables":{"customer":{"exact":true},
//!            "s_varchar":{"exact":false,"column":"k","reason":"text in collation utf8mb4_general_ci ..."}}}
//! ```
//!
//! `column` is absent for a table without primary key (only selectable with
//! `allow_tables_without_primary_key`).

use vitess_cdc_core::keyorder::TableKeyOrders;
use vitess_cdc_core::{Result, StreamOptions};

/// Connects, plans the selection of `options` and reads its key orders; closes before returning.
pub fn read(options: &StreamOptions) -> Result<String> {
    Ok(render(&vitess_cdc_core::blocking::selected_key_orders(
        options,
    )?))
}

/// The JSON form above.
pub fn render(orders: &TableKeyOrders) -> String {
    let tables: serde_json::Map<String, serde_json::Value> = orders
        .iter()
        .map(|(table, order)| {
            let entry = match order {
                Ok(_) => serde_json::json!({ "exact": true }),
                Err(why) if why.column.is_empty() => {
                    serde_json::json!({ "exact": false, "reason": why.reason })
                }
                Err(why) => {
                    serde_json::json!({ "exact": false, "column": why.column, "reason": why.reason })
                }
            };
            (table.clone(), entry)
        })
        .collect();
    serde_json::json!({ "tables": tables }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use vitess_cdc_core::keyorder::{ColumnOrder, Inexact, KeyOrder};

    #[test]
    fn exact_inexact_and_keyless_tables_are_rendered() {
        let mut orders = TableKeyOrders::new();
        orders.insert(
            "customer".to_string(),
            Ok(KeyOrder {
                columns: vec![ColumnOrder::Signed],
            }),
        );
        orders.insert(
            "s_varchar".to_string(),
            ColumnOrder::of_declared("k", "varchar", "varchar(64)", Some("utf8mb4_general_ci"))
                .map(|c| KeyOrder { columns: vec![c] }),
        );
        orders.insert(
            "log".to_string(),
            Err(Inexact {
                column: String::new(),
                reason: "no primary key".to_string(),
            }),
        );
        let json: serde_json::Value = serde_json::from_str(&render(&orders)).unwrap();
        let tables = &json["tables"];
        assert_eq!(tables["customer"], serde_json::json!({ "exact": true }));
        assert_eq!(tables["s_varchar"]["exact"], false);
        assert_eq!(tables["s_varchar"]["column"], "k");
        let reason = tables["s_varchar"]["reason"].as_str().unwrap();
        assert!(reason.contains("utf8mb4_general_ci"), "{reason}");
        assert_eq!(
            tables["log"],
            serde_json::json!({ "exact": false, "reason": "no primary key" })
        );
    }

    #[test]
    fn an_empty_selection_is_an_empty_object() {
        assert_eq!(render(&TableKeyOrders::new()), r#"{"tables":{}}"#);
    }
}
