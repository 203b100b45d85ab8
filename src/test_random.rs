//! A seeded generator for the crate's randomized unit tests.

/// Numbers below a bound, from a linear congruential generator seeded with `random`.
pub(crate) fn seeded(mut random: u64) -> impl FnMut(u64) -> u64 {
    move |bound| {
        random = random
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (random >> 33) % bound
    }
}
