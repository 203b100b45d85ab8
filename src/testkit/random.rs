//! Where the kit's random choices come from: proptest strategies in the property tests, a seed
//! in the benches, a fuzzer's bytes in the fuzz targets.

use proptest::prelude::*;

/// A position in a collection whose size is known only later: `index(size)` scales it to
/// `0..size` (as proptest's `Index` does, which cannot be made outside a strategy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pick(pub usize);

impl Pick {
    /// The index it names in a collection of `size` items (`size` must not be 0).
    pub fn index(self, size: usize) -> usize {
        assert!(size > 0, "a pick into an empty collection");
        ((size as u128 * self.0 as u128) >> usize::BITS) as usize
    }
}

/// A [`Pick`] as proptest draws it (shrinking towards the first item).
pub fn pick() -> impl Strategy<Value = Pick> {
    any::<usize>().prop_map(Pick)
}

/// A source of random numbers for drawing plans outside proptest.
pub trait Source {
    /// A number in `0..bound` (`bound` > 0).
    fn below(&mut self, bound: u64) -> u64;

    /// A byte.
    fn byte(&mut self) -> u8 {
        self.below(256) as u8
    }

    /// `true` with probability `numerator / denominator`.
    fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.below(denominator) < numerator
    }

    /// A pick anywhere.
    fn pick(&mut self) -> Pick {
        let high = self.below(1 << 32);
        let low = self.below(1 << 32);
        Pick(((high << 32) | low) as usize)
    }
}

/// A linear congruential generator: the same numbers for the same seed on every machine.
#[derive(Clone, Debug)]
pub struct Seeded(u64);

impl Seeded {
    /// A generator started at `seed`.
    pub fn new(seed: u64) -> Seeded {
        Seeded(seed)
    }
}

impl Source for Seeded {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound.max(1)
    }
}

/// Numbers read from a fuzzer's bytes, then zeros once they run out (so a short input is a
/// short, simple plan and the fuzzer's mutations map to nearby plans).
#[derive(Clone, Debug)]
pub struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    /// A source over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Bytes<'a> {
        Bytes(bytes)
    }

    /// Whether every byte was read.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Source for Bytes<'_> {
    fn below(&mut self, bound: u64) -> u64 {
        let mut value = 0u64;
        let mut span = 1u64;
        while span < bound {
            let Some((first, rest)) = self.0.split_first() else {
                break;
            };
            value = (value << 8) | u64::from(*first);
            span = span.saturating_mul(256);
            self.0 = rest;
        }
        value % bound.max(1)
    }
}
