//! Decimal text to the nearest double, as `JSON.parse` reads numbers. Numbers of at most 19
//! significant digits whose power of ten is small are computed exactly in floating point (each
//! operand and the one operation are exact or correctly rounded); the rare rest goes to the
//! platform's parser: JavaScript's `parseFloat` in the npm build (feature `wasm`: the module then
//! carries no decimal conversion tables), Rust's `str::parse` otherwise.

/// Powers of ten a double holds exactly.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The largest integer below which every integer is a double.
const EXACT_INTEGER_LIMIT: u64 = 1 << 53;

/// The nearest double to `text`, a number the JSON grammar accepts.
pub(crate) fn parse_number(text: &str) -> Option<f64> {
    fast_path(text).or_else(|| platform_parse(text))
}

/// The exact result when the digits fit in 53 bits and the power of ten is at most 22.
fn fast_path(text: &str) -> Option<f64> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (significand, exponent) = match body.find(['e', 'E']) {
        Some(at) => (
            body.get(..at)?,
            body.get(at.checked_add(1)?..)?.parse::<i32>().ok()?,
        ),
        None => (body, 0),
    };
    let (whole, fraction) = significand.split_once('.').unwrap_or((significand, ""));
    let mut mantissa: u64 = 0;
    let mut digits = 0u32;
    for byte in whole.bytes().chain(fraction.bytes()) {
        let digit = u64::from(byte.checked_sub(b'0')?);
        if mantissa == 0 && digit == 0 {
            continue;
        }
        digits = digits.checked_add(1)?;
        if digits > 19 {
            return None;
        }
        mantissa = mantissa.checked_mul(10)?.checked_add(digit)?;
    }
    if mantissa > EXACT_INTEGER_LIMIT {
        return None;
    }
    let fraction_len = i32::try_from(fraction.len()).ok()?;
    let power = exponent.checked_sub(fraction_len)?;
    let magnitude = mantissa as f64;
    let value = if mantissa == 0 {
        0.0
    } else if power >= 0 {
        magnitude * *EXACT_POWERS.get(usize::try_from(power).ok()?)?
    } else {
        magnitude / *EXACT_POWERS.get(usize::try_from(power.unsigned_abs()).ok()?)?
    };
    Some(if negative { -value } else { value })
}

#[cfg(feature = "wasm")]
fn platform_parse(text: &str) -> Option<f64> {
    Some(js_sys::parse_float(text))
}

#[cfg(not(feature = "wasm"))]
fn platform_parse(text: &str) -> Option<f64> {
    text.parse().ok()
}

// proptest is a native dev-dependency; `wasm-pack test` builds the unit tests for wasm32 too.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn fast_path_covers_common_numbers_exactly() {
        for text in [
            "0",
            "-0",
            "0.7",
            "1.5e-7",
            "1733150000000",
            "1733150000000.5",
            "-2.5E+3",
            "1e22",
            "9007199254740992",
            "0.000001",
        ] {
            let fast = fast_path(text);
            assert!(fast.is_some(), "{text} should take the fast path");
            assert_eq!(
                fast.map(f64::to_bits),
                text.parse::<f64>().ok().map(f64::to_bits)
            );
        }
        for text in ["9007199254740993", "1e23", "1e-23", "12345678901234567890"] {
            assert_eq!(fast_path(text), None, "{text}");
        }
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_the_standard_parser(
            negative in proptest::bool::ANY,
            whole in 0u64..100_000_000_000,
            fraction in proptest::option::of("[0-9]{1,12}"),
            exponent in proptest::option::of(-40i32..40),
        ) {
            let mut text = format!("{}{whole}", if negative { "-" } else { "" });
            if let Some(fraction) = fraction {
                text = format!("{text}.{fraction}");
            }
            if let Some(exponent) = exponent {
                text = format!("{text}e{exponent}");
            }
            let expected: f64 = text.parse().unwrap();
            proptest::prop_assert_eq!(parse_number(&text).map(f64::to_bits), Some(expected.to_bits()), "{}", text);
        }
    }
}
