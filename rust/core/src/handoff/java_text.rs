// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Values as the Java reader prints them, for the rows the core writes in the reader's place
//! ([`super::flink_row`], [`super::debezium_json`]): `LocalDate` / `LocalDateTime.toString`,
//! MySQL's TIME text, `BigDecimal.toString` and `Double.toString`. Each answers `None` where the
//! Java text is not one this module reproduces, and the record then goes to Java with values.

use crate::value::Value;
use std::fmt::Write as _;

/// A temporal value's text: `[-]HH:MM:SS.ffffff` for a TIME (the Java reader's `formatTime`),
/// `LocalDate.toString` / `LocalDateTime.toString` for a valid DATE / DATETIME; `None` for a zero
/// or invalid date (Java has no date for it) and for other values.
pub fn temporal(value: &Value) -> Option<String> {
    match *value {
        Value::Time {
            negative,
            hours,
            minute,
            second,
            micros,
        } => {
            let zero = hours == 0 && minute == 0 && second == 0 && micros == 0;
            let sign = if negative && !zero { "-" } else { "" };
            Some(format!(
                "{sign}{hours:02}:{minute:02}:{second:02}.{micros:06}"
            ))
        }
        Value::Date { year, month, day } => {
            epoch_day(year, month, day)?;
            Some(format!("{year:04}-{month:02}-{day:02}"))
        }
        Value::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micros,
        } => {
            epoch_day(year, month, day)?;
            if hour > 23 || minute > 59 || second > 59 || micros > 999_999 {
                return None;
            }
            let mut text = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}");
            // LocalTime.toString: seconds only when they or a fraction are nonzero, the
            // fraction in groups of three digits.
            if second > 0 || micros > 0 {
                let _ = write!(text, ":{second:02}");
            }
            if micros > 0 {
                if micros % 1000 == 0 {
                    let _ = write!(text, ".{:03}", micros / 1000);
                } else {
                    let _ = write!(text, ".{micros:06}");
                }
            }
            Some(text)
        }
        _ => None,
    }
}

/// Days from 1970-01-01 to a valid proleptic-Gregorian date (the Java reader's `epochDay`);
/// `None` for a zero part or a day the month does not have.
pub fn epoch_day(year: u16, month: u8, day: u8) -> Option<i64> {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let month_days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return None,
    };
    if day < 1 || day > month_days {
        return None;
    }
    let y = year as i64;
    let mut total = 365 * y + (y + 3) / 4 - (y + 99) / 100 + (y + 399) / 400;
    total += (367 * month as i64 - 362) / 12 + day as i64 - 1;
    if month > 2 {
        total -= if leap { 1 } else { 2 };
    }
    Some(total - 719_528)
}

/// The digits of a plain decimal text `[-]digits[.digits]`: (negative, integer part, fraction).
pub fn plain_decimal(text: &str) -> Option<(bool, &str, &str)> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (integer, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if integer.is_empty() || !digits(integer) || !digits(fraction) || unsigned.ends_with('.') {
        return None;
    }
    Some((negative, integer, fraction))
}

/// `new BigDecimal(text).toString()` for a plain decimal text: plain digits, or scientific
/// notation when the adjusted exponent is below -6 (`0.00000001` is `1E-8`, `0.00000000` is
/// `0E-8`); no sign on a zero.
pub fn big_decimal(text: &str) -> Option<String> {
    let (negative, integer, fraction) = plain_decimal(text)?;
    let all: String = integer.chars().chain(fraction.chars()).collect();
    let coefficient = match all.trim_start_matches('0') {
        "" => "0",
        digits => digits,
    };
    let scale = fraction.len() as i64;
    let adjusted = -scale + (coefficient.len() as i64 - 1);
    let mut out = String::with_capacity(text.len() + 4);
    if negative && coefficient != "0" {
        out.push('-');
    }
    if adjusted >= -6 {
        let point = coefficient.len() as i64 - scale;
        if scale == 0 {
            out.push_str(coefficient);
        } else if point > 0 {
            let (int_part, frac_part) = coefficient.split_at(point as usize);
            let _ = write!(out, "{int_part}.{frac_part}");
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(coefficient);
        }
    } else {
        let (first, rest) = coefficient.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            let _ = write!(out, ".{rest}");
        }
        let _ = write!(out, "E{adjusted}");
    }
    Some(out)
}

/// `Double.toString` of a finite double as Java 19 and later print it: the shortest decimal that
/// reads back as the same double (two digits where one would do, the closer of them), plain from
/// 10^-3 to 10^7, else `d.dddE±n`. Java 17's older algorithm prints a few values with more
/// digits than needed; they read back as the same double.
pub fn double(v: f64) -> Option<String> {
    if !v.is_finite() {
        return None;
    }
    if v == 0.0 {
        return Some(if v.is_sign_negative() { "-0.0" } else { "0.0" }.to_string());
    }
    let shortest = format!("{v:e}");
    // One significant digit: Java takes the two-digit decimal closest to the value instead.
    let scientific = if shortest.trim_start_matches('-').split('e').next()?.len() == 1 {
        format!("{v:.1e}")
    } else {
        shortest
    };
    let (negative, digits, exponent) = decimal_parts(&scientific)?;
    let (digits, exponent) = halfway_to_even(v, digits, exponent);
    let digits = match digits.trim_end_matches('0') {
        "" => "0",
        d => d,
    };
    let mut out = String::with_capacity(digits.len() + 8);
    if negative {
        out.push('-');
    }
    if (-3..7).contains(&exponent) {
        let point = exponent + 1;
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(digits);
        } else if point as usize >= digits.len() {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
            out.push_str(".0");
        } else {
            let (int_part, frac_part) = digits.split_at(point as usize);
            let _ = write!(out, "{int_part}.{frac_part}");
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        let _ = write!(out, "{first}.{rest}E{exponent}");
    }
    Some(out)
}

/// `[-]d.ddde±n` as (negative, the digits, n).
fn decimal_parts(scientific: &str) -> Option<(bool, String, i32)> {
    let (mantissa, exponent) = scientific.split_once('e')?;
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits = mantissa.chars().filter(|c| *c != '.').collect();
    Some((negative, digits, exponent.parse().ok()?))
}

/// The shortest digits of `v`, the even ones where the value lies exactly halfway between two
/// shortest decimals (`20.2671051025390625`: Java prints `…062`, where Rust's shortest form
/// may end in `3`).
fn halfway_to_even(v: f64, digits: String, exponent: i32) -> (String, i32) {
    if !may_be_a_tie(v) {
        return (digits, exponent);
    }
    let k = digits.len();
    // 41 significant digits, correctly rounded: exact for every double that can be a tie (a
    // tie's exact value has k + 1 <= 18 digits).
    let Some((_, exact, exact_exponent)) = decimal_parts(&format!("{:.40e}", v.abs())) else {
        return (digits, exponent);
    };
    let tie = exact_exponent == exponent
        && exact.as_bytes().get(k) == Some(&b'5')
        && exact.bytes().skip(k + 1).all(|b| b == b'0');
    if !tie {
        return (digits, exponent);
    }
    let mut lower = exact.as_bytes()[..k].to_vec();
    if lower[k - 1] % 2 == 0 {
        return (String::from_utf8_lossy(&lower).into_owned(), exponent);
    }
    // Round the odd lower neighbour up to the even upper one, carrying.
    let mut i = k;
    while i > 0 {
        i -= 1;
        if lower[i] == b'9' {
            lower[i] = b'0';
        } else {
            lower[i] += 1;
            return (String::from_utf8_lossy(&lower).into_owned(), exponent);
        }
    }
    lower.insert(0, b'1');
    (String::from_utf8_lossy(&lower).into_owned(), exponent + 1)
}

/// Whether `v`'s exact decimal value has few enough significant digits (at most 18) to lie
/// halfway between two shortest decimals. Most doubles have dozens and are settled here, without
/// writing them out to 41 digits: `m * 2^-n` (`m` odd) is exactly `m * 5^n / 10^n`, whose digits
/// are those of `m * 5^n`; an integer below 2^53 is its own shortest form.
fn may_be_a_tie(v: f64) -> bool {
    let bits = v.abs().to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mantissa, exponent) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    if mantissa == 0 {
        return false;
    }
    let zeros = mantissa.trailing_zeros();
    let (odd, exponent) = (mantissa >> zeros, exponent + zeros as i32);
    let odd_bits = 64 - odd.leading_zeros() as i32;
    if exponent >= 0 {
        return odd_bits + exponent > 53;
    }
    // m * 5^n >= 2^(bits(m) - 1) * 5^n; at 2^60 (> 10^18) it has more than 18 digits.
    let at_least_log2 = (odd_bits - 1) as f64 + f64::from(-exponent) * std::f64::consts::LOG2_10
        - f64::from(-exponent);
    at_least_log2 < 60.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tie the exact check finds passes the quick one: the quick one only skips doubles
    /// whose exact value has more than 18 significant digits.
    #[test]
    fn the_quick_tie_check_never_skips_a_tie() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut ties, mut skipped, mut all) = (0, 0, 0);
        let mut candidates: Vec<f64> = vec![
            20.267_105_102_539_062, // 20.2671051025390625 exactly
            0.5,
            2.5,
            1e23,
            5e-324,
            9007199254740993.0,
        ];
        for _ in 0..100_000 {
            candidates.push(f64::from_bits(next()));
            // Short binary fractions: the doubles ties come from (f32 values widened, halves).
            candidates.push(f64::from(f32::from_bits(next() as u32)));
            candidates.push((next() % 1_000_000) as f64 / 1024.0);
        }
        for v in candidates
            .into_iter()
            .filter(|v| v.is_finite() && *v != 0.0)
        {
            all += 1;
            // The tie as the exact check sees it: the exact value is the shortest digits and a 5.
            let (_, digits, exponent) = decimal_parts(&format!("{:e}", v.abs())).unwrap();
            let (_, exact, exact_exponent) = decimal_parts(&format!("{:.40e}", v.abs())).unwrap();
            let k = digits.len();
            let tie = exact_exponent == exponent
                && exact.as_bytes().get(k) == Some(&b'5')
                && exact.bytes().skip(k + 1).all(|b| b == b'0');
            if tie {
                ties += 1;
                assert!(may_be_a_tie(v), "{v:e} is a tie");
            } else if !may_be_a_tie(v) {
                skipped += 1;
            }
        }
        assert!(ties > 100, "the sample holds ties: {ties}");
        assert!(skipped > 0 && all > skipped);
        // What tables hold: decimals such as prices, which are no short binary fraction.
        let decimals = (1..100_000)
            .filter(|i| i % 125 != 0)
            .map(|i| f64::from(i) / 1000.0);
        let (quick, n) = decimals.fold((0, 0), |(q, n), v| {
            (q + usize::from(!may_be_a_tie(v)), n + 1)
        });
        assert_eq!(
            quick, n,
            "every such decimal is settled without the exact digits"
        );
    }

    #[test]
    fn big_decimal_text_is_java_big_decimals() {
        for (text, java) in [
            ("123.45", "123.45"),
            ("-12.340", "-12.340"),
            ("0", "0"),
            ("0.5", "0.5"),
            ("-0.00", "0.00"),
            ("0.000001", "0.000001"),
            ("0.0000001", "1E-7"),
            ("0.00000000", "0E-8"),
            ("-0.00000012", "-1.2E-7"),
            ("100", "100"),
            (
                "99999999999999999999.9999999999",
                "99999999999999999999.9999999999",
            ),
        ] {
            assert_eq!(big_decimal(text).as_deref(), Some(java), "{text}");
        }
        assert_eq!(big_decimal("1e5"), None);
    }

    #[test]
    // The exact value of a double halfway between two shortest decimals is the point.
    #[allow(clippy::excessive_precision)]
    fn double_text_is_java_doubles() {
        for (v, java) in [
            (1.5, "1.5"),
            (100.0, "100.0"),
            (0.001, "0.001"),
            (1.0e7, "1.0E7"),
            (1234567.0, "1234567.0"),
            (1.0e-4, "1.0E-4"),
            (-2.5e-10, "-2.5E-10"),
            (1.0e23, "1.0E23"),
            (5e-324, "4.9E-324"),
            (f64::MAX, "1.7976931348623157E308"),
            (0.1f32 as f64, "0.10000000149011612"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (2e-3, "0.002"),
            (20.2671051025390625, "20.267105102539062"),
            (-1010.2102661132812, "-1010.2102661132812"),
            (2.2043533325195312, "2.2043533325195312"),
        ] {
            assert_eq!(double(v).as_deref(), Some(java), "{v:e}");
        }
        assert_eq!(double(f64::NAN), None);
    }

    #[test]
    fn temporal_text_is_java_local_date_times() {
        let dt = |second, micros| Value::DateTime {
            year: 999,
            month: 1,
            day: 2,
            hour: 3,
            minute: 4,
            second,
            micros,
        };
        assert_eq!(temporal(&dt(0, 0)).unwrap(), "0999-01-02T03:04");
        assert_eq!(temporal(&dt(5, 0)).unwrap(), "0999-01-02T03:04:05");
        assert_eq!(
            temporal(&dt(0, 120_000)).unwrap(),
            "0999-01-02T03:04:00.120"
        );
        assert_eq!(temporal(&dt(0, 7)).unwrap(), "0999-01-02T03:04:00.000007");
        assert_eq!(
            temporal(&Value::Date {
                year: 2023,
                month: 2,
                day: 29
            }),
            None
        );
        let time = Value::Time {
            negative: true,
            hours: 838,
            minute: 59,
            second: 59,
            micros: 0,
        };
        assert_eq!(temporal(&time).unwrap(), "-838:59:59.000000");
    }
}
