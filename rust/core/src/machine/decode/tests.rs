// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

use super::*;

fn field(name: &str, ty: Type, column_type: &str, charset: u32, flags: u32) -> Field {
    Field {
        name: name.into(),
        r#type: ty as i32,
        column_type: column_type.into(),
        charset,
        flags,
        ..Default::default()
    }
}

fn col(ty: Type, column_type: &str, charset: u32) -> Column {
    column_from_field(&field("c", ty, column_type, charset, 0))
}

fn dv(ty: Type, column_type: &str, text: &[u8]) -> Result<Value> {
    decode_value(&col(ty, column_type, 255), text)
}

/// Table `ks.t` on shard `-80` as a FIELD event with `fields` announces it.
fn table(fields: Vec<Field>) -> Arc<TableSchema> {
    let event = FieldEvent {
        table_name: "ks.t".into(),
        fields,
        ..Default::default()
    };
    Arc::new(schema_from_field_event(&event, "ks", "-80", 1))
}

fn row(cells: &[Option<&[u8]>]) -> Row {
    let mut lengths = Vec::with_capacity(cells.len());
    let mut values = Vec::new();
    for c in cells {
        match c {
            None => lengths.push(-1),
            Some(b) => {
                lengths.push(b.len() as i64);
                values.extend_from_slice(b);
            }
        }
    }
    Row::with_lengths(lengths, values)
}

#[test]
fn integers_signed_and_unsigned() {
    assert_eq!(
        dv(Type::Int8, "tinyint", b"-128").unwrap(),
        Value::Int(-128)
    );
    assert_eq!(
        dv(Type::Int64, "bigint", b"-9223372036854775808").unwrap(),
        Value::Int(i64::MIN)
    );
    assert_eq!(
        dv(Type::Uint64, "bigint unsigned", b"18446744073709551615").unwrap(),
        Value::UInt(u64::MAX)
    );
    assert_eq!(dv(Type::Year, "year", b"2024").unwrap(), Value::Int(2024));
    assert_eq!(dv(Type::Year, "year", b"0000").unwrap(), Value::Int(0));
    assert!(dv(Type::Int32, "int", b"12x")
        .unwrap_err()
        .message
        .contains("'12x'"));
    assert!(dv(Type::Uint64, "bigint unsigned", b"-1").is_err());
}

#[test]
fn decimal_keeps_exact_text() {
    assert_eq!(
        dv(Type::Decimal, "decimal(10,3)", b"-12.340").unwrap(),
        Value::Decimal("-12.340".into())
    );
    assert_eq!(
        dv(Type::Decimal, "decimal(5,0)", b"  42").unwrap(),
        Value::Decimal("42".into())
    );
    // Vitess v23's binlog forms of these values (the copy sends MySQL's): the same value, as
    // MySQL writes it.
    for (wire, mysql) in [
        (".0000000001", "0.0000000001"),
        ("-.5", "-0.5"),
        ("000000000000000000", "0"),
        ("0007.20", "7.20"),
        ("-0012", "-12"),
        ("0.00", "0.00"),
        ("-0.5", "-0.5"),
    ] {
        assert_eq!(
            dv(Type::Decimal, "decimal(20,10)", wire.as_bytes()).unwrap(),
            Value::Decimal(mysql.into()),
            "{wire}"
        );
    }
    assert!(dv(Type::Decimal, "decimal(5,2)", b"1.2.3").is_err());
    assert!(dv(Type::Decimal, "decimal(5,2)", b"-").is_err());
    assert_eq!(col(Type::Decimal, "decimal(10,3)", 63).length, 10);
}

#[test]
fn floats_in_copy_and_binlog_forms() {
    assert_eq!(
        dv(Type::Float64, "double", b"1.5").unwrap(),
        Value::Float(1.5)
    );
    assert_eq!(
        dv(Type::Float64, "double", b"1.5E+00").unwrap(),
        Value::Float(1.5)
    );
    assert_eq!(
        dv(Type::Float64, "double", b"-2.5E-10").unwrap(),
        Value::Float(-2.5e-10)
    );
    let copy = dv(Type::Float32, "float", b"0.1").unwrap();
    let binlog = dv(Type::Float32, "float", b"1E-01").unwrap();
    assert_eq!(copy, binlog);
    assert_eq!(copy, Value::Float(0.1f32 as f64));
    assert!(dv(Type::Float64, "double", b"one").is_err());
}

#[test]
fn float_has_the_six_digits_mysql_shows_in_both_phases() {
    // copy phase (SELECT text) vs binlog phase (full single precision)
    for (copy, binlog) in [
        (&b"1.23457"[..], &b"1.2345678E+00"[..]),
        (b"3.40282e38", b"3.4028235E+38"),
        (b"1234560", b"1.234565E+06"), // tie: half to even, like MySQL
        (b"-0.1", b"-1E-01"),
    ] {
        let a = dv(Type::Float32, "float", copy).unwrap();
        let b = dv(Type::Float32, "float", binlog).unwrap();
        assert_eq!(a, b, "{copy:?} vs {binlog:?}");
    }
    assert_eq!(
        dv(Type::Float32, "float", b"1.2345678").unwrap(),
        Value::Float(1.23457f32 as f64)
    );
    // DOUBLE keeps every digit
    assert_eq!(
        dv(Type::Float64, "double", b"1.2345678901234567").unwrap(),
        Value::Float(1.2345678901234567)
    );
}

#[test]
fn json_text_gets_mysql_layout() {
    let j = |s: &str| normalize_json_text(s.to_string().into());
    let mysql = r#"{"a": [1, 2.5, null], "b": {"c": "x, y: z"}}"#;
    assert_eq!(j(mysql), mysql);
    assert_eq!(j(r#"{"a":[1,2.5,null],"b":{"c":"x, y: z"}}"#), mysql);
    assert_eq!(
        j("{ \"a\" :\n[1 ,2.5,\tnull],\"b\":{\"c\":\"x, y: z\"}}"),
        mysql
    );
    assert_eq!(j(r#"["q\"uote:,", "\\"]"#), r#"["q\"uote:,", "\\"]"#);
    assert_eq!(j(r#"["q\"uote:,","\\"]"#), r#"["q\"uote:,", "\\"]"#);
    assert_eq!(j("{}"), "{}");
    assert_eq!(j("[]"), "[]");
    assert_eq!(j("null"), "null");
    assert_eq!(
        decode_value(&col(Type::Json, "json", 63), br#"{"a":1}"#).unwrap(),
        Value::String(r#"{"a": 1}"#.into())
    );
}

#[test]
fn latin1_is_windows_1252_like_mysql() {
    let latin1 = col(Type::Varchar, "varchar(8)", 8);
    assert_eq!(
        decode_value(
            &latin1,
            &[b'c', b'a', b'f', 0xe9, b' ', 0x80, b' ', 0xff, 0x81]
        )
        .unwrap(),
        Value::String("café € ÿ\u{81}".into())
    );
}

#[test]
fn temporal_values() {
    assert_eq!(
        dv(Type::Date, "date", b"2024-02-29").unwrap(),
        Value::Date {
            year: 2024,
            month: 2,
            day: 29
        }
    );
    assert_eq!(
        dv(Type::Date, "date", b"0000-00-00").unwrap(),
        Value::Date {
            year: 0,
            month: 0,
            day: 0
        }
    );
    assert_eq!(
        dv(Type::Datetime, "datetime(6)", b"2024-01-02 03:04:05.123456").unwrap(),
        Value::DateTime {
            year: 2024,
            month: 1,
            day: 2,
            hour: 3,
            minute: 4,
            second: 5,
            micros: 123456
        }
    );
    assert_eq!(
        dv(Type::Timestamp, "timestamp(3)", b"2024-01-02 03:04:05.5").unwrap(),
        Value::DateTime {
            year: 2024,
            month: 1,
            day: 2,
            hour: 3,
            minute: 4,
            second: 5,
            micros: 500000
        }
    );
    assert_eq!(
        dv(Type::Timestamp, "timestamp", b"0000-00-00 00:00:00").unwrap(),
        Value::DateTime {
            year: 0,
            month: 0,
            day: 0,
            hour: 0,
            minute: 0,
            second: 0,
            micros: 0
        }
    );
    assert_eq!(
        dv(Type::Time, "time", b"-838:59:59").unwrap(),
        Value::Time {
            negative: true,
            hours: 838,
            minute: 59,
            second: 59,
            micros: 0
        }
    );
    assert_eq!(
        dv(Type::Time, "time(2)", b"25:00:01.25").unwrap(),
        Value::Time {
            negative: false,
            hours: 25,
            minute: 0,
            second: 1,
            micros: 250000
        }
    );
    assert_eq!(
        dv(Type::Time, "time", b"00:00:00").unwrap(),
        Value::Time {
            negative: false,
            hours: 0,
            minute: 0,
            second: 0,
            micros: 0
        }
    );
    for bad_value in [
        &b"2024-13-01"[..],
        b"2024-1-01",
        b"24-01-01",
        b"2024-01-01x",
    ] {
        assert!(dv(Type::Date, "date", bad_value).is_err());
    }
    assert!(dv(Type::Datetime, "datetime", b"2024-01-01 24:00:00").is_err());
    assert!(dv(Type::Datetime, "datetime", b"2024-01-01 10:00:00.1234567").is_err());
    assert!(dv(Type::Time, "time", b"10:60:00").is_err());
}

#[test]
fn text_versus_binary_collation() {
    assert_eq!(
        col(Type::Varchar, "varchar(10)", 255).column_type,
        ColumnType::String
    );
    assert_eq!(
        col(Type::Varchar, "varbinary(10)", 63).column_type,
        ColumnType::Bytes
    );
    assert_eq!(
        col(Type::Char, "char(3)", 63).column_type,
        ColumnType::Bytes
    );
    assert_eq!(
        decode_value(&col(Type::Varchar, "varchar(10)", 255), "héllo".as_bytes()).unwrap(),
        Value::String("héllo".into())
    );
    assert_eq!(
        decode_value(&col(Type::Varbinary, "varbinary(4)", 63), &[0, 255]).unwrap(),
        Value::Bytes(vec![0, 255].into())
    );
    assert_eq!(
        decode_value(&col(Type::Varchar, "varchar(4)", 8), &[0xe9]).unwrap(),
        Value::String("é".into())
    );
    let err = decode_value(&col(Type::Varchar, "varchar(4)", 255), &[0xff, 0xfe]).unwrap_err();
    assert!(err.message.contains("not valid UTF-8"), "{}", err.message);
    assert_eq!(
        decode_value(&col(Type::Blob, "blob", 63), b"\x00\x01").unwrap(),
        Value::Bytes(vec![0, 1].into())
    );
    assert_eq!(
        decode_value(&col(Type::Binary, "binary(2)", 63), b"ab").unwrap(),
        Value::Bytes(b"ab".to_vec().into())
    );
    // Text in a binary collation is announced as binary, and is text of its character set.
    assert_eq!(
        decode_value(&col(Type::Varbinary, "varchar(4)", 47), &[0xe9, 0x80]).unwrap(),
        Value::String("é€".into()),
        "latin1_bin"
    );
    assert_eq!(
        decode_value(&col(Type::Blob, "text", 46), "𝄞".as_bytes()).unwrap(),
        Value::String("𝄞".into()),
        "utf8mb4_bin"
    );
    assert_eq!(
        col(Type::Varbinary, "varchar(4)", 0).column_type,
        ColumnType::Bytes,
        "a collation VTGate does not name stays bytes until the stream learns it"
    );
    assert_eq!(col(Type::Text, "text", 255).column_type, ColumnType::String);
    assert_eq!(col(Type::Blob, "blob", 63).column_type, ColumnType::Bytes);
}

#[test]
fn bit_json_geometry_enum_set() {
    let bit = col(Type::Bit, "bit(12)", 63);
    assert_eq!(bit.column_type, ColumnType::Bit);
    assert_eq!(bit.length, 12);
    assert_eq!(
        decode_value(&bit, &[0x0f, 0xff]).unwrap(),
        Value::Bytes(vec![0x0f, 0xff].into())
    );
    assert_eq!(
        decode_value(&col(Type::Json, "json", 63), br#"{"a": [1, 2]}"#).unwrap(),
        Value::String(r#"{"a": [1, 2]}"#.into())
    );
    let geo = col(Type::Geometry, "point", 63);
    assert_eq!(geo.column_type, ColumnType::Geometry);
    // MySQL's internal form (SRID 3857, little-endian) arrives as the WKB alone.
    let point_wkb = [
        &[1u8, 1, 0, 0, 0][..],
        &1.5f64.to_le_bytes(),
        &(-2.0f64).to_le_bytes(),
    ]
    .concat();
    let internal = [&3857u32.to_le_bytes()[..], &point_wkb].concat();
    assert_eq!(
        decode_value(&geo, &internal).unwrap(),
        Value::Bytes(point_wkb.into())
    );
    let short = decode_value(&geo, &[0, 0, 0, 0, 1, 1]).unwrap_err();
    assert!(
        short.message.contains("not a MySQL geometry"),
        "{}",
        short.message
    );
    assert_eq!(
        col(Type::Enum, "enum('a','b')", 255).column_type,
        ColumnType::Enum
    );
    // BEST_EFFORT announces binary-collation ENUM/SET as CHAR/BINARY; column_type wins.
    assert_eq!(
        col(Type::Binary, "enum('a','b')", 63).column_type,
        ColumnType::Enum
    );
    assert_eq!(
        col(Type::Char, "set('x','y')", 255).column_type,
        ColumnType::Set
    );
    assert_eq!(
        decode_value(&col(Type::Set, "set('x','y')", 255), b"x,y").unwrap(),
        Value::String("x,y".into())
    );
}

#[test]
fn enum_and_set_indexes_before_v20() {
    let schema = table(vec![
        field("e", Type::Enum, "enum('small','it''s','large')", 255, 0),
        field("s", Type::Set, "set('a','b','c')", 255, 0),
    ]);
    let numeric = RowDecoder::new(schema.clone(), false);
    assert_eq!(
        numeric
            .decode(&row(&[Some(b"2"), Some(b"5")]), None)
            .unwrap(),
        vec![Value::String("it's".into()), Value::String("a,c".into())]
    );
    assert_eq!(
        numeric
            .decode(&row(&[Some(b"0"), Some(b"0")]), None)
            .unwrap()[0],
        Value::String("".into())
    );
    assert!(numeric.decode(&row(&[Some(b"9"), None]), None).is_err());
    let strings = RowDecoder::new(schema, true);
    assert_eq!(
        strings
            .decode(&row(&[Some(b"large"), Some(b"a,b")]), None)
            .unwrap(),
        vec![Value::String("large".into()), Value::String("a,b".into())]
    );
}

#[test]
fn members_are_unquoted() {
    assert_eq!(
        parse_members("enum('a','b''c','d\\'e')"),
        vec!["a", "b'c", "d'e"]
    );
    assert_eq!(parse_members("set('x,y')"), vec!["x,y"]);
    assert!(parse_members("int").is_empty());
}

#[test]
fn schema_from_fields() {
    let pk = MySqlFlag::PriKeyFlag as u32 | MySqlFlag::NotNullFlag as u32;
    let event = FieldEvent {
        table_name: "commerce.product".into(),
        fields: vec![
            field("id", Type::Int64, "bigint", 63, pk),
            field("name", Type::Varchar, "varchar(10)", 255, 0),
        ],
        keyspace: "commerce".into(),
        shard: "0".into(),
        ..Default::default()
    };
    let s = schema_from_field_event(&event, "commerce", "0", 3);
    assert_eq!(s.table, "product");
    assert_eq!(s.version, 3);
    assert_eq!(s.primary_key_indexes(), vec![0]);
    assert!(!s.columns[0].nullable);
    assert!(s.columns[1].nullable);
    assert_eq!(bare_table_name("ks", "t"), "t");
    assert_eq!(bare_table_name("ks", "ksx.t"), "ksx.t");
}

#[test]
fn null_versus_absent() {
    let d = RowDecoder::new(
        table(vec![
            field("a", Type::Int32, "int", 63, 0),
            field("b", Type::Blob, "blob", 63, 0),
        ]),
        true,
    );
    let r = row(&[Some(b"1"), None]);
    assert_eq!(
        d.decode(&r, None).unwrap(),
        vec![Value::Int(1), Value::Null]
    );
    let only_first = Bitmap {
        count: 2,
        cols: vec![0b01].into(),
    };
    assert_eq!(
        d.decode(&r, Some(&only_first)).unwrap(),
        vec![Value::Int(1), Value::Absent]
    );
    let both = Bitmap {
        count: 2,
        cols: vec![0b11].into(),
    };
    assert_eq!(
        d.decode(&r, Some(&both)).unwrap(),
        vec![Value::Int(1), Value::Null]
    );
}

#[test]
fn malformed_rows_are_errors() {
    let too_long = Row {
        lengths: crate::proto::encode_lengths(vec![5]),
        values: b"abc".to_vec().into(),
    };
    assert!(split_row(&too_long)
        .unwrap_err()
        .message
        .contains("needs 5 bytes"));
    let leftover = Row {
        lengths: crate::proto::encode_lengths(vec![1]),
        values: b"abc".to_vec().into(),
    };
    assert!(split_row(&leftover).is_err());
    let negative = Row {
        lengths: crate::proto::encode_lengths(vec![-7]),
        values: Default::default(),
    };
    assert!(split_row(&negative).is_err());
    let huge = Row {
        lengths: crate::proto::encode_lengths(vec![i64::MAX]),
        values: Default::default(),
    };
    assert!(split_row(&huge).is_err());
    let d = RowDecoder::new(table(vec![field("a", Type::Int32, "int", 63, 0)]), true);
    let err = d.decode(&row(&[Some(b"1"), Some(b"2")]), None).unwrap_err();
    assert!(
        err.message.contains("2 values") && err.message.contains("1 columns"),
        "{}",
        err.message
    );
    let err = d.decode(&row(&[Some(b"x")]), None).unwrap_err();
    assert!(err.message.contains("column a"), "{}", err.message);
}

/// `RowDecoder::decode` reads each length as it decodes the cell; a row that is wrong as a whole
/// is still reported as such, not by the first value that fails on the way.
#[test]
fn a_row_wrong_as_a_whole_is_reported_before_its_values() {
    let d = RowDecoder::new(
        table(vec![
            field("a", Type::Int32, "int", 63, 0),
            field("b", Type::Int32, "int", 63, 0),
        ]),
        true,
    );
    assert_eq!(
        d.decode(&row(&[Some(b"1"), None]), None).unwrap(),
        vec![Value::Int(1), Value::Null]
    );
    // Too few cells, too many cells (the extra one after a bad value), and no cells at all.
    for cells in [
        vec![Some(&b"1"[..])],
        vec![Some(&b"x"[..]), Some(b"2"), Some(b"3")],
        vec![],
    ] {
        let err = d.decode(&row(&cells), None).unwrap_err();
        assert!(
            err.message
                .contains(&format!("row has {} values", cells.len()))
                && err.message.contains("2 columns"),
            "{}",
            err.message
        );
    }
    // A bad value in a row whose lengths overrun its bytes further on: the overrun is named.
    let mut overrun = row(&[Some(b"x"), Some(b"2")]);
    overrun.values.truncate(1);
    let err = d.decode(&overrun, None).unwrap_err();
    assert!(err.message.contains("malformed row"), "{}", err.message);
    // Bytes left over after the last cell.
    let mut trailing = row(&[Some(b"1"), Some(b"2")]);
    trailing.values = bytes::Bytes::from_static(b"123");
    let err = d.decode(&trailing, None).unwrap_err();
    assert!(
        err.message.contains("lengths cover 2 bytes"),
        "{}",
        err.message
    );
    // A length that is not a varint.
    let bad = Row {
        lengths: bytes::Bytes::from_static(&[0x80]),
        values: Default::default(),
    };
    let err = d.decode(&bad, None).unwrap_err();
    assert!(err.message.contains("not a varint"), "{}", err.message);
}

/// The split-based DATE/DATETIME parser the fixed-position one replaced, kept as the oracle.
fn split_reference(t: &str) -> Option<Value> {
    fn date(t: &str) -> Option<(u16, u8, u8)> {
        let mut parts = t.split('-');
        let year = digits(parts.next()?, 4..=4)?;
        let month: u8 = digits(parts.next()?, 2..=2)?;
        let day: u8 = digits(parts.next()?, 2..=2)?;
        if parts.next().is_some() || month > 12 || day > 31 {
            return None;
        }
        Some((year, month, day))
    }
    let (d, time) = t.split_once([' ', 'T'])?;
    let (year, month, day) = date(d)?;
    let (hms, micros) = match time.split_once('.') {
        Some((hms, frac)) => (hms, parse_fraction(frac)?),
        None => (time, 0),
    };
    let mut p = hms.split(':');
    let hour: u8 = digits(p.next()?, 2..=2)?;
    let minute: u8 = digits(p.next()?, 2..=2)?;
    let second: u8 = digits(p.next()?, 2..=2)?;
    if p.next().is_some() || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    Some(Value::DateTime {
        year,
        month,
        day,
        hour,
        minute,
        second,
        micros,
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
    /// Integers (and near misses: signs, spaces, too many digits, a stray letter) decode to
    /// what the general path, Rust's parser after trimming, makes of them, or fail as it does.
    #[test]
    fn integers_decode_as_the_general_parser_reads_them(
        t in "[ ]?[-+]?[0-9]{0,21}[x ]?"
    ) {
        let signed = dv(Type::Int64, "bigint", t.as_bytes()).ok();
        proptest::prop_assert_eq!(signed, t.trim().parse::<i64>().ok().map(Value::Int), "{}", t);
        let unsigned = dv(Type::Uint64, "bigint unsigned", t.as_bytes()).ok();
        proptest::prop_assert_eq!(unsigned, t.trim().parse::<u64>().ok().map(Value::UInt), "{}", t);
    }

    /// Over strings shaped like date-times (and near misses: wrong separators, lengths, digits,
    /// non-ASCII), the fixed-position parser accepts exactly what the split one did, with the
    /// same value.
    #[test]
    fn fixed_position_date_times_equal_the_split_parser(
        t in "[0-9]{3,5}[-x][0-9]{1,3}-[0-9]{2}[ Té][0-9]{2}[:.][0-9]{2}:[0-9]{1,3}(\\.[0-9]{0,7})?[ xé]?"
    ) {
        proptest::prop_assert_eq!(parse_datetime(&t).ok(), split_reference(&t), "{}", t);
        let date_part: String = t.chars().take(10).collect();
        let reference_date = split_reference(&format!("{date_part} 00:00:00"))
            .map(|v| match v { Value::DateTime { year, month, day, .. } => (year, month, day), _ => unreachable!() });
        proptest::prop_assert_eq!(parse_date(&date_part), reference_date, "{}", date_part);
    }

    /// Mostly valid date-times (every field in or near its range): the same values.
    #[test]
    fn fixed_position_date_times_equal_the_split_parser_on_valid_shapes(
        t in "[0-9]{4}-[01][0-9]-[0-3][0-9][ T][0-2][0-9]:[0-6][0-9]:[0-6][0-9](\\.[0-9]{1,6})?"
    ) {
        proptest::prop_assert_eq!(parse_datetime(&t).ok(), split_reference(&t), "{}", t);
    }
}

/// Text, DECIMAL and binary values of a decoded row are slices of the row's buffer (no copy,
/// no allocation per value); `decode_value` and `Value::detached` copy, so kept values do not
/// pin a received message. Latin-1 text is shared while it is ASCII and transcoded otherwise.
#[test]
fn row_values_share_the_row_buffer_and_kept_values_do_not() {
    let decoder = RowDecoder::new(
        table(vec![
            field("v", Type::Varchar, "varchar(10)", 255, 0),
            field("d", Type::Decimal, "decimal(6,2)", 63, 0),
            field("b", Type::Varbinary, "varbinary(4)", 63, 0),
            field("l", Type::Varchar, "varchar(10)", 8, 0),
            field("m", Type::Varchar, "varchar(10)", 8, 0),
            field("j", Type::Json, "json", 63, 0),
        ]),
        true,
    );
    let r = row(&[
        Some("héllo".as_bytes()),
        Some(b"+12.50"),
        Some(&[0, 255]),
        Some(b"ascii"),
        Some(&[0x80, b'x']),
        Some(br#"{"a": 1}"#),
    ]);
    let values = decoder.decode(&r, None).unwrap();
    assert_eq!(
        values,
        vec![
            Value::String("héllo".into()),
            Value::Decimal("12.50".into()),
            Value::Bytes(vec![0, 255].into()),
            Value::String("ascii".into()),
            Value::String("€x".into()),
            Value::String(r#"{"a": 1}"#.into()),
        ]
    );
    let shares = |v: &Value| -> bool {
        let bytes: &[u8] = match v {
            Value::String(s) | Value::Decimal(s) => s.as_bytes(),
            Value::Bytes(b) => b,
            _ => unreachable!(),
        };
        within(&r.values, bytes)
    };
    let shared: Vec<bool> = values.iter().map(shares).collect();
    assert_eq!(shared, [true, true, true, true, false, true]);
    assert!(values.iter().all(|v| !shares(&v.detached())));
    assert_eq!(
        values.iter().map(Value::detached).collect::<Vec<_>>(),
        values
    );
    // The same cell of the same buffer, through the copying entry point.
    let copied = decode_value(&decoder.schema.columns[0], &r.values[..6]).unwrap();
    assert_eq!(copied, values[0]);
    assert!(!shares(&copied));
}
