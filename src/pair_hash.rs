//! A hasher for maps keyed by a step, `(turn, step)`: a few multiplications instead of SipHash,
//! which took a quarter of the instructions of a native `Conversation::load` (callgrind, typical
//! 100,000 events). The keys come from the log, so the high bits are folded into the low ones
//! that pick a bucket: steps far apart do not all land in one.
//!
//! Kept over the `rustc-hash` crate (2.1, `FxBuildHasher`), measured in its place: no faster
//! beyond this machine's noise (native `cargo bench --bench fold`, `views()` of typical 100,000
//! 0.88x and of prune-heavy 8,000 1.05x its time with this hasher), and its hash keeps the high
//! bits of a key out of the low ones, so steps that differ only in bits 48 and up (a log can say
//! so) all fall into one bucket of 256 where this hasher spreads them
//! (`keys_that_differ_only_in_high_bits_spread_over_the_low_bits`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by `(turn, step)`.
pub(crate) type StepMap<V> = HashMap<(u64, u64), V, BuildHasherDefault<PairHasher>>;

/// Hashes the integers written to it (a `(u64, u64)` key writes two).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PairHasher {
    state: u64,
}

/// An odd constant with well-spread bits (2^64 divided by the golden ratio).
const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

impl Hasher for PairHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.state = (self.state.rotate_left(26) ^ value).wrapping_mul(MULTIPLIER);
    }

    fn finish(&self) -> u64 {
        let folded = (self.state ^ (self.state >> 32)).wrapping_mul(MULTIPLIER);
        folded ^ (folded >> 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash(key: (u64, u64)) -> u64 {
        BuildHasherDefault::<PairHasher>::default().hash_one(key)
    }

    #[test]
    fn keys_that_differ_in_either_half_or_in_order_hash_apart() {
        assert_ne!(hash((1, 2)), hash((2, 1)));
        assert_ne!(hash((0, 1)), hash((1, 0)));
        assert_ne!(hash((5, 5)), hash((5, 6)));
        assert_eq!(hash((7, 9)), hash((7, 9)));
    }

    // A map picks the bucket from the low bits: keys that differ only in high bits must still
    // spread over them, or a log with such steps would make every lookup a long probe.
    #[test]
    fn keys_that_differ_only_in_high_bits_spread_over_the_low_bits() {
        for shift in [20, 32, 40, 48, 56] {
            let low: std::collections::HashSet<u64> =
                (0..256u64).map(|i| hash((1, i << shift)) & 0xff).collect();
            assert!(
                low.len() > 120,
                "shift {shift}: {} of 256 buckets",
                low.len()
            );
        }
    }

    #[test]
    fn a_step_map_keeps_every_key() {
        let mut map: StepMap<u64> = StepMap::default();
        for turn in 0..100u64 {
            for step in 0..20u64 {
                map.insert((turn << 33, step), turn * 20 + step);
            }
        }
        assert_eq!(map.len(), 2000);
        assert_eq!(map.get(&(5 << 33, 7)), Some(&107));
        let mut bytes = PairHasher::default();
        b"ab".hash(&mut bytes);
        assert_ne!(bytes.finish(), PairHasher::default().finish());
    }
}
