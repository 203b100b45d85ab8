//! Line interning: equal lines get equal small numbers, so the diff compares numbers.

/// Numbers for the lines of two texts (and names, see `pairing`), equal for equal strings.
pub struct Interner<'a> {
    /// The first string given each number.
    strings: Vec<&'a str>,
    /// Open addressing: (number + 1, the hash's high half) per slot, number 0 for empty; the
    /// length is a power of two. The tag spares most string comparisons of a probe.
    slots: Vec<(u32, u32)>,
}

impl<'a> Interner<'a> {
    /// An interner with room for `expected` distinct strings before it grows.
    pub fn new(expected: usize) -> Interner<'a> {
        Interner {
            strings: Vec::with_capacity(expected),
            slots: vec![(0, 0); expected.saturating_mul(2).max(16).next_power_of_two()],
        }
    }

    /// How many distinct strings were given.
    pub fn count(&self) -> usize {
        self.strings.len()
    }

    /// The number of `text`.
    pub fn intern(&mut self, text: &'a str) -> u32 {
        if self.strings.len().saturating_mul(2) >= self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len().saturating_sub(1);
        let (mut at, tag) = hash(text);
        at &= mask;
        loop {
            match self.slots.get(at).copied() {
                Some((0, _)) | None => break,
                Some((slot, slot_tag)) => {
                    let number = slot.saturating_sub(1);
                    if slot_tag == tag && self.strings.get(number as usize) == Some(&text) {
                        return number;
                    }
                }
            }
            at = at.wrapping_add(1) & mask;
        }
        let number = u32::try_from(self.strings.len()).unwrap_or(u32::MAX);
        self.strings.push(text);
        if let Some(slot) = self.slots.get_mut(at) {
            *slot = (number.saturating_add(1), tag);
        }
        number
    }

    fn grow(&mut self) {
        let size = self.slots.len().saturating_mul(2);
        let mask = size.saturating_sub(1);
        let mut slots = vec![(0u32, 0u32); size];
        for (number, text) in self.strings.iter().enumerate() {
            let (start, tag) = hash(text);
            let mut at = start & mask;
            while slots.get(at).is_some_and(|slot| slot.0 != 0) {
                at = at.wrapping_add(1) & mask;
            }
            if let Some(slot) = slots.get_mut(at) {
                *slot = (
                    u32::try_from(number).unwrap_or(u32::MAX).saturating_add(1),
                    tag,
                );
            }
        }
        self.slots = slots;
    }
}

/// A multiply-rotate hash over eight bytes at a time, mixed: a slot index and a tag.
fn hash(text: &str) -> (usize, u32) {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |hash: u64, word: u64| (hash.rotate_left(5) ^ word).wrapping_mul(K);
    let bytes = text.as_bytes();
    let mut chunks = bytes.chunks_exact(8);
    let mut hash = (bytes.len() as u64).wrapping_mul(K);
    // Bytes to a word by a fold: a slice copy here was a call per word in the release build.
    let word = |bytes: &[u8]| {
        bytes
            .iter()
            .rev()
            .fold(0u64, |word, byte| (word << 8) | u64::from(*byte))
    };
    for chunk in &mut chunks {
        hash = mix(hash, word(chunk));
    }
    hash = mix(hash, word(chunks.remainder()));
    // A multiply carries differences only upwards: mix the high bits down (murmur3's fmix64).
    hash = (hash ^ (hash >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash = (hash ^ (hash >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    hash ^= hash >> 33;
    (hash as usize, (hash >> 32) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_strings_get_equal_numbers() {
        let mut interner = Interner::new(1);
        let words: Vec<String> = (0..1000).map(|i| format!("w{}", i % 300)).collect();
        let numbers: Vec<u32> = words.iter().map(|w| interner.intern(w)).collect();
        assert_eq!(interner.count(), 300);
        for (a, na) in words.iter().zip(&numbers) {
            assert_eq!(*na, numbers[words.iter().position(|b| b == a).unwrap()]);
        }
        assert_eq!(interner.intern(""), 300);
        assert_eq!(interner.intern(""), 300);
    }
}
