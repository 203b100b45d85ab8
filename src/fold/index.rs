//! The ordered index the surface fold keeps of its tip: entry indices by a pair of seqs, in
//! sorted runs (chunks) of at most [`CHUNK`] entries.
//!
//! The surface fold works at the end of its index almost always: a node is appended with the
//! largest key, and a prune replaces a recent node. Here an operation first tries the last
//! chunk, which a comparison or two finds (a B-tree searches from its root for every key, the
//! largest included), and within a chunk a search is a binary search over a short array. Any
//! other key costs a binary search over the chunks and one within a chunk; an insert or a
//! removal moves at most a chunk's entries, and a split or an emptied chunk moves the list of
//! chunks (a few thousand for the largest sessions), so no operation costs more than about
//! `CHUNK` plus the number of chunks, whatever the order of the keys.

use crate::input::event::Seq;

/// A key: a pair of seqs, ordered as a tuple.
pub(super) type Key = (Seq, Seq);

/// The most entries a chunk holds. A split leaves two halves; a chunk that falls under a quarter
/// of this is merged with the next one when both fit in three quarters.
const CHUNK: usize = 64;

/// Entry indices by key, ascending. Every chunk is nonempty and holds at most [`CHUNK`]
/// entries; the chunks in order hold the keys in order.
#[derive(Clone, Debug, Default)]
pub(super) struct ChunkedIndex {
    chunks: Vec<Vec<(Key, usize)>>,
}

/// Where `key` is, or would be, in a chunk.
fn search(chunk: &[(Key, usize)], key: Key) -> Result<usize, usize> {
    // A key above the chunk's last (an append) is answered by one comparison.
    match chunk.last() {
        Some((last, _)) if *last < key => Err(chunk.len()),
        _ => chunk.binary_search_by(|(other, _)| other.cmp(&key)),
    }
}

impl ChunkedIndex {
    /// An empty index.
    pub fn new() -> ChunkedIndex {
        ChunkedIndex::default()
    }

    /// The number of entries.
    #[cfg(any(test, feature = "testkit"))]
    pub fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// The chunk where `key` is or belongs: the last one when its first key is at most `key`
    /// (the common case), else the first whose last key is at least `key`, else the last one.
    /// Zero when there is no chunk.
    fn chunk_of(&self, key: Key) -> usize {
        let last = self.chunks.len().saturating_sub(1);
        match self.chunks.last().and_then(|chunk| chunk.first()) {
            Some((first, _)) if *first <= key => last,
            _ => (self.chunks)
                .partition_point(|chunk| chunk.last().is_some_and(|(high, _)| *high < key))
                .min(last),
        }
    }

    /// Inserts `value` at `key`, returning the value it takes the place of.
    pub fn insert(&mut self, key: Key, value: usize) -> Option<usize> {
        let at = self.chunk_of(key);
        let chunks = self.chunks.len();
        let Some(chunk) = self.chunks.get_mut(at) else {
            let mut chunk = Vec::with_capacity(CHUNK);
            chunk.push((key, value));
            self.chunks.push(chunk);
            return None;
        };
        let place = match search(chunk, key) {
            Ok(place) => {
                let old = chunk
                    .get_mut(place)
                    .map(|(_, old)| std::mem::replace(old, value));
                debug_assert!(old.is_some(), "a found place is in the chunk");
                return old;
            }
            Err(place) => place,
        };
        if chunk.len() < CHUNK {
            chunk.insert(place, (key, value));
        } else if place == CHUNK && at.saturating_add(1) == chunks {
            // An append to a full last chunk starts the next one.
            let mut next = Vec::with_capacity(CHUNK);
            next.push((key, value));
            self.chunks.push(next);
        } else {
            let mut upper = Vec::with_capacity(CHUNK);
            upper.extend(chunk.drain(CHUNK / 2..));
            match place.checked_sub(CHUNK / 2) {
                Some(place) => upper.insert(place, (key, value)),
                None => chunk.insert(place, (key, value)),
            }
            self.chunks.insert(at.saturating_add(1), upper);
        }
        None
    }

    /// Removes the entry at `key`, returning its value.
    pub fn remove(&mut self, key: &Key) -> Option<usize> {
        let at = self.chunk_of(*key);
        let chunk = self.chunks.get_mut(at)?;
        let place = search(chunk, *key).ok()?;
        Some(self.remove_at(at, place).1)
    }

    /// Removes the first entry whose key is at least `from` when its first seq is at most `to`,
    /// returning it.
    pub fn take_first(&mut self, from: Key, to: Seq) -> Option<(Key, usize)> {
        let (at, place, (key, _)) = self.find_first(from)?;
        (key.0 <= to).then(|| self.remove_at(at, place))
    }

    /// The first entry whose key is at least `from`.
    pub fn first_from(&self, from: Key) -> Option<(Key, usize)> {
        self.find_first(from).map(|(_, _, entry)| entry)
    }

    /// The first entry whose key is at least `from`, with its chunk and place in the chunk.
    fn find_first(&self, from: Key) -> Option<(usize, usize, (Key, usize))> {
        let at = self.chunk_of(from);
        let chunk = self.chunks.get(at)?;
        let place = search(chunk, from).unwrap_or_else(|place| place);
        // None only past the last key: `chunk_of` picks the chunk that holds a larger key.
        chunk.get(place).map(|entry| (at, place, *entry))
    }

    /// Removes the entry at `place` in chunk `at` (both inside the index), returning it. A
    /// chunk left empty goes; one left small is merged with the next when both fit.
    fn remove_at(&mut self, at: usize, place: usize) -> (Key, usize) {
        let Some(chunk) = self.chunks.get_mut(at) else {
            debug_assert!(false, "removes from a chunk of the index");
            return ((Seq::MIN, Seq::MIN), 0);
        };
        debug_assert!(place < chunk.len(), "removes an entry of the chunk");
        let entry = chunk.remove(place);
        let small = chunk.len();
        let next = at.saturating_add(1);
        if small == 0 {
            self.chunks.remove(at);
        } else if small < CHUNK / 4
            && (self.chunks.get(next))
                .is_some_and(|next| next.len().saturating_add(small) <= CHUNK * 3 / 4)
        {
            let merged = self.chunks.remove(next);
            if let Some(chunk) = self.chunks.get_mut(at) {
                chunk.extend(merged);
            }
        }
        entry
    }

    /// The entry with the smallest key.
    pub fn first(&self) -> Option<(Key, usize)> {
        self.chunks.first().and_then(|chunk| chunk.first()).copied()
    }

    /// The entry with the largest key.
    pub fn last(&self) -> Option<(Key, usize)> {
        self.chunks.last().and_then(|chunk| chunk.last()).copied()
    }

    /// The value at `key`.
    pub fn get(&self, key: &Key) -> Option<usize> {
        let chunk = self.chunks.get(self.chunk_of(*key))?;
        let place = search(chunk, *key).ok()?;
        chunk.get(place).map(|(_, value)| *value)
    }

    /// Whether an entry has `key`.
    pub fn contains_key(&self, key: &Key) -> bool {
        self.get(key).is_some()
    }

    /// Every entry whose key is at least `from`, ascending.
    pub fn iter_from(&self, from: Key) -> impl Iterator<Item = (Key, usize)> + '_ {
        let (at, place) = match self.find_first(from) {
            Some((at, place, _)) => (at, place),
            None => (self.chunks.len(), 0),
        };
        let first = (self.chunks.get(at))
            .and_then(|chunk| chunk.get(place..))
            .unwrap_or_default();
        let rest = self.chunks.get(at.saturating_add(1)..).unwrap_or_default();
        first.iter().chain(rest.iter().flatten()).copied()
    }

    /// Every entry, ascending by key.
    pub fn iter(&self) -> impl Iterator<Item = (Key, usize)> + '_ {
        self.chunks.iter().flatten().copied()
    }

    /// Every key, ascending.
    pub fn keys(&self) -> impl Iterator<Item = Key> + '_ {
        self.iter().map(|(key, _)| key)
    }

    /// Every value, ascending by key.
    pub fn values(&self) -> impl Iterator<Item = usize> + '_ {
        self.iter().map(|(_, value)| value)
    }

    /// The bytes of the index's allocations.
    #[cfg(feature = "testkit")]
    pub fn heap_bytes(&self) -> usize {
        let entries: usize = self.chunks.iter().map(Vec::capacity).sum();
        let chunks = self.chunks.capacity();
        entries
            .saturating_mul(std::mem::size_of::<(Key, usize)>())
            .saturating_add(chunks.saturating_mul(std::mem::size_of::<Vec<(Key, usize)>>()))
    }
}

impl FromIterator<(Key, usize)> for ChunkedIndex {
    fn from_iter<I: IntoIterator<Item = (Key, usize)>>(entries: I) -> ChunkedIndex {
        let mut index = ChunkedIndex::new();
        for (key, value) in entries {
            index.insert(key, value);
        }
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::seeded;
    use std::collections::BTreeMap;

    /// The index's invariants: chunks nonempty and at most `CHUNK` long, keys strictly
    /// ascending across them.
    fn check(index: &ChunkedIndex) {
        assert!(index
            .chunks
            .iter()
            .all(|chunk| (1..=CHUNK).contains(&chunk.len())));
        let keys: Vec<Key> = index.keys().collect();
        assert!(keys.windows(2).all(|pair| pair[0] < pair[1]));
    }

    /// Random operations, mostly at the end as the surface fold makes them and now and then
    /// anywhere, against a B-tree map: every answer and the whole content agree after each.
    #[test]
    fn agrees_with_an_ordered_map() {
        for seed in 0..6 {
            let mut next = seeded(seed);
            let (mut index, mut oracle) = (ChunkedIndex::new(), BTreeMap::new());
            let (mut top, mut most_chunks): (Seq, usize) = (0, 0);
            for step in 0..20_000 {
                let near_end = |next: &mut dyn FnMut(u64) -> u64, top: Seq| {
                    let back = if next(4) == 0 { next(4000) } else { next(8) };
                    top - back as Seq
                };
                match next(20) {
                    17 if next(20) != 0 => {}
                    0..=7 => {
                        top += 1 + next(2) as Seq;
                        let key = (top, top - next(2) as Seq);
                        let value = next(1000) as usize;
                        assert_eq!(index.insert(key, value), oracle.insert(key, value));
                    }
                    8..=10 => {
                        let key = (near_end(&mut next, top), next(3) as Seq + top - 2);
                        let value = next(1000) as usize;
                        assert_eq!(index.insert(key, value), oracle.insert(key, value));
                    }
                    11..=13 => {
                        let from = (near_end(&mut next, top), Seq::MIN);
                        let to = from.0 + next(3) as Seq;
                        let expected = oracle.range(from..).next().map(|(k, v)| (*k, *v));
                        assert_eq!(index.first_from(from), expected);
                        let expected = expected.filter(|(key, _)| key.0 <= to);
                        assert_eq!(index.take_first(from, to), expected);
                        if let Some((key, _)) = expected {
                            oracle.remove(&key);
                        }
                    }
                    14..=16 => {
                        let key = oracle.keys().nth_back(next(10) as usize).copied();
                        let key = key.unwrap_or((top, top));
                        assert_eq!(index.remove(&key), oracle.remove(&key));
                    }
                    17 => {
                        // A wide drop, as a compaction makes it.
                        let from = (top - next(6000) as Seq, Seq::MIN);
                        let to = from.0 + next(3000) as Seq;
                        while let Some((key, value)) = index.take_first(from, to) {
                            assert_eq!(oracle.remove(&key), Some(value));
                        }
                        assert!(oracle.range(from..).next().is_none_or(|(k, _)| k.0 > to));
                    }
                    _ => {
                        let key = (near_end(&mut next, top), next(3) as Seq + top - 2);
                        assert_eq!(index.remove(&key), oracle.remove(&key));
                    }
                }
                assert_eq!(index.last(), oracle.last_key_value().map(|(k, v)| (*k, *v)));
                assert_eq!(
                    index.first(),
                    oracle.first_key_value().map(|(k, v)| (*k, *v))
                );
                let key = (near_end(&mut next, top), next(3) as Seq + top - 2);
                assert_eq!(index.get(&key), oracle.get(&key).copied());
                let from = (near_end(&mut next, top), Seq::MIN);
                let expected = oracle.range(from..).take(70).map(|(k, v)| (*k, *v));
                assert!(index.iter_from(from).take(70).eq(expected));
                most_chunks = most_chunks.max(index.chunks.len());
                if step % 97 == 0 {
                    check(&index);
                    assert_eq!(index.len(), oracle.len());
                    let entries: Vec<(Key, usize)> = oracle.iter().map(|(k, v)| (*k, *v)).collect();
                    assert_eq!(
                        index.iter().collect::<Vec<_>>(),
                        entries,
                        "seed {seed} step {step}"
                    );
                }
            }
            check(&index);
            assert!(
                most_chunks > 10,
                "the test reaches many chunks: {most_chunks}"
            );
        }
    }

    /// Inserting keys in descending order (the worst order for the end-first search) keeps the
    /// chunks full enough: at most about two chunks per `CHUNK` entries.
    #[test]
    fn any_order_keeps_chunks_half_full() {
        let mut index = ChunkedIndex::new();
        for seq in (0..10_000).rev() {
            index.insert((seq, seq), 0);
        }
        check(&index);
        assert!(index.chunks.len() <= 2 * 10_000 / CHUNK + 1);
    }
}
