//! A versioned record: every entry a line of states ever held, with the versions between which
//! it survived, so that a state is a version number.
//!
//! The latest version (the tip) is what the owner's own ordered indexes describe: it adds and
//! removes entries there, a few O(log n) updates in place. An earlier version is read back from
//! the nearest checkpoint (a list of the entries surviving at some version) plus the entries
//! added since, so reading a version costs about as much as that checkpoint's survivors plus the
//! entries added since.
//!
//! Checkpoints and the latest version live in a [`History`], which knows nothing of what an
//! entry holds, so that code exists once in the wasm module however many kinds of entries use
//! it. An entry sits beside its versions in one list: one allocation per record, and a read
//! touches each entry once.

/// A version of a record: the number of events folded into it. Version 0 is empty.
pub(super) type Version = u32;

/// Entry indices by a pair of seqs: the map type of the owners' indexes of the tip (one map
/// type, so that the wasm module holds one copy of its code).
pub(super) type Index = super::index::ChunkedIndex;

/// Versions between checkpoints, at least (and at least the survivors of the last checkpoint,
/// so that checkpoints cost a few bytes per version however many entries survive).
const CHECKPOINT_SPAN: usize = 32;

/// The versions an entry survived: `born..died`.
#[derive(Clone, Copy, Debug)]
struct Life {
    born: Version,
    /// `Version::MAX` while it survives at the tip.
    died: Version,
}

impl Life {
    /// The life of an entry added at `version`.
    fn born_at(version: Version) -> Life {
        Life {
            born: version,
            died: Version::MAX,
        }
    }

    fn survives_at(self, version: Version) -> bool {
        self.born <= version && version < self.died
    }
}

/// The entries surviving at one version.
#[derive(Clone, Debug)]
struct Checkpoint {
    version: Version,
    /// Where its survivors' indices sit in `History::checkpointed`.
    start: usize,
    end: usize,
    /// The number of entries when it was taken: later entries were born after it.
    entries: usize,
}

/// The latest version of a record and its checkpoints: what does not depend on the entries.
#[derive(Clone, Debug)]
struct History {
    version: Version,
    checkpoints: Vec<Checkpoint>,
    checkpointed: Vec<usize>,
}

impl History {
    /// A history whose version 0 holds entries `0..count`, all surviving at the tip.
    fn surviving(count: usize) -> History {
        History {
            version: 0,
            checkpoints: vec![Checkpoint {
                version: 0,
                start: 0,
                end: count,
                entries: count,
            }],
            checkpointed: (0..count).collect(),
        }
    }

    /// Starts the next version of a record of `entries` entries.
    // Inlined: a fold calls it once per event, and it rarely checkpoints.
    #[inline]
    fn advance(&mut self, tip: &[&Index], entries: usize) -> Version {
        let last = self.checkpoints.last();
        let since = last.map_or(0, |last| self.version.saturating_sub(last.version));
        let survivors = last.map_or(0, |last| last.end.saturating_sub(last.start));
        if since as usize >= survivors.max(CHECKPOINT_SPAN) {
            self.checkpoint(tip, entries);
        }
        // A record of 2^32 events cannot fit in memory (each takes more than a byte).
        self.version = self.version.saturating_add(1);
        self.version
    }

    fn checkpoint(&mut self, tip: &[&Index], entries: usize) {
        let start = self.checkpointed.len();
        for index in tip {
            self.checkpointed.extend(index.values());
        }
        self.checkpoints.push(Checkpoint {
            version: self.version,
            start,
            end: self.checkpointed.len(),
            entries,
        });
    }

    /// Where reading `version` of a record of `entries` entries starts: the indices of the
    /// survivors of the nearest checkpoint, and the first entry added after it.
    fn read_from(&self, version: Version, entries: usize) -> (&[usize], usize) {
        let at = self
            .checkpoints
            .partition_point(|checkpoint| checkpoint.version <= version);
        match at.checked_sub(1).and_then(|at| self.checkpoints.get(at)) {
            Some(checkpoint) => {
                debug_assert!(
                    checkpoint.start <= checkpoint.end
                        && checkpoint.end <= self.checkpointed.len()
                        && checkpoint.entries <= entries,
                    "a checkpoint lies inside the record"
                );
                let old = self.checkpointed.get(checkpoint.start..checkpoint.end);
                (old.unwrap_or_default(), checkpoint.entries)
            }
            None => (&[], 0),
        }
    }
}

/// An entry and its life.
#[derive(Clone, Debug)]
struct Slot<E> {
    life: Life,
    entry: E,
}

/// Every entry of a line of states, each with the versions it survived.
#[derive(Clone, Debug)]
pub(super) struct Versioned<E> {
    history: History,
    slots: Vec<Slot<E>>,
}

impl<E> Default for Versioned<E> {
    fn default() -> Versioned<E> {
        Versioned {
            history: History::surviving(0),
            slots: Vec::new(),
        }
    }
}

impl<E> Versioned<E> {
    /// The latest version.
    pub fn version(&self) -> Version {
        self.history.version
    }

    /// Starts the next version; entries added and killed until the next call belong to it.
    /// `tip` are the owner's indexes of the tip, which together name every survivor once.
    #[inline]
    pub fn advance(&mut self, tip: &[&Index]) -> Version {
        self.history.advance(tip, self.slots.len())
    }

    /// Room for `additional` more entries ([`crate::error::Error::OutOfMemory`] when the
    /// memory cannot give it).
    pub fn reserve(&mut self, additional: usize) -> Result<(), crate::error::Error> {
        crate::room::try_room(&mut self.slots, additional)
    }

    /// Adds `entry` at the tip, returning its index.
    pub fn push(&mut self, entry: E) -> usize {
        let index = self.slots.len();
        self.slots.push(Slot {
            life: Life::born_at(self.history.version),
            entry,
        });
        index
    }

    /// Ends the life of entry `index` at the latest version, returning the entry.
    pub fn kill(&mut self, index: usize) -> Option<&E> {
        let Some(slot) = self.slots.get_mut(index) else {
            debug_assert!(false, "an index of the tip names an entry");
            return None;
        };
        slot.life.died = self.history.version;
        Some(&slot.entry)
    }

    /// Entry `index`.
    pub fn get(&self, index: usize) -> Option<&E> {
        self.slots.get(index).map(|slot| &slot.entry)
    }

    /// Calls `each` with every entry surviving at `version`, in no particular order. (A
    /// callback, not an iterator: the wasm module holds one copy of this code per kind of
    /// entry, not one per caller.)
    pub fn each_surviving(&self, version: Version, each: &mut dyn FnMut(&E)) {
        let (old, first_new) = self.history.read_from(version, self.slots.len());
        for slot in old.iter().filter_map(|index| self.slots.get(*index)) {
            if slot.life.survives_at(version) {
                each(&slot.entry);
            }
        }
        for slot in self.slots.get(first_new..).unwrap_or_default() {
            if slot.life.born > version {
                break;
            }
            if slot.life.survives_at(version) {
                each(&slot.entry);
            }
        }
    }

    /// Every entry, by index.
    pub fn entries(&self) -> impl Iterator<Item = &E> {
        self.slots.iter().map(|slot| &slot.entry)
    }

    /// Adds this record's entries (row `name`) and checkpoints to `profile`.
    #[cfg(feature = "testkit")]
    pub fn heap_profile(&self, name: &'static str, profile: &mut crate::heap::HeapProfile) {
        profile.list(name, &self.slots);
        profile.list("checkpoints", &self.history.checkpoints);
        profile.list("checkpoints", &self.history.checkpointed);
    }

    /// The number of checkpoints taken.
    #[cfg(test)]
    pub fn checkpoint_count(&self) -> usize {
        self.history.checkpoints.len()
    }
}

impl<E: Clone> Versioned<E> {
    /// A new record whose version 0 holds what survives at `version` of this one.
    pub fn branch(&self, version: Version) -> Versioned<E> {
        let mut slots = Vec::new();
        self.each_surviving(version, &mut |entry| {
            slots.push(Slot {
                life: Life::born_at(0),
                entry: entry.clone(),
            });
        });
        Versioned {
            history: History::surviving(slots.len()),
            slots,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::event::Seq;
    use crate::test_random::seeded;

    /// A record of numbered entries, its tip as one index keyed `(entry, 0)`, and what survived
    /// at each of its versions (the oracle for `each_surviving`).
    struct Model {
        record: Versioned<Seq>,
        tip: Index,
        seen: Vec<Vec<Seq>>,
    }

    impl Model {
        /// A model of `record`, whose entries all survive at its version 0, its only one.
        fn new(record: Versioned<Seq>) -> Model {
            assert_eq!(record.version(), 0);
            let tip: Index = (record.entries().enumerate())
                .map(|(index, entry)| ((*entry, 0), index))
                .collect();
            let seen = vec![tip.keys().map(|(entry, _)| entry).collect()];
            Model { record, tip, seen }
        }

        /// Folds `steps` random versions, adding entries numbered from `first` and killing some
        /// (now and then every survivor).
        fn run(&mut self, seed: u64, steps: usize, first: Seq) {
            let mut next = seeded(seed);
            let mut entry = first;
            for _ in 0..steps {
                let version = self.record.advance(&[&self.tip]);
                assert_eq!(version, self.record.version());
                for _ in 0..next(4) {
                    let index = self.record.push(entry);
                    self.tip.insert((entry, 0), index);
                    entry += 1;
                }
                let killed: Vec<(Seq, Seq)> = match next(300) {
                    0 => self.tip.keys().collect(),
                    _ => (0..next(3))
                        .filter_map(|_| self.tip.keys().nth(next(8) as usize))
                        .collect(),
                };
                for key in killed {
                    if let Some(index) = self.tip.remove(&key) {
                        assert_eq!(self.record.kill(index), Some(&key.0));
                    }
                }
                self.seen
                    .push(self.tip.keys().map(|(entry, _)| entry).collect());
            }
        }

        fn read(&self, version: Version) -> Vec<Seq> {
            let mut entries = Vec::new();
            self.record
                .each_surviving(version, &mut |entry| entries.push(*entry));
            entries.sort_unstable();
            entries
        }
    }

    /// Random adds and kills over thousands of versions: every version reads back exactly what
    /// the tip held when it was the tip, through checkpoints of every size.
    #[test]
    fn every_version_reads_back_as_it_was() {
        let mut model = Model::new(Versioned::default());
        model.run(3, 3000, 0);
        assert!(model.record.checkpoint_count() > 20);
        for (version, expected) in model.seen.iter().enumerate() {
            let version = Version::try_from(version).unwrap();
            assert_eq!(&model.read(version), expected, "version {version}");
        }
    }

    /// A branch of any version holds that version's survivors at its version 0 and goes on
    /// from there as a record of its own; the record it came from stays as it was.
    #[test]
    fn a_branch_starts_from_its_version() {
        let mut model = Model::new(Versioned::default());
        model.run(5, 600, 0);
        for version in (0..=model.record.version()).step_by(37) {
            let mut branch = Model::new(model.record.branch(version));
            assert_eq!(branch.seen[0], model.seen[version as usize], "{version}");
            branch.run(u64::from(version), 100, 10_000);
            for (at, expected) in branch.seen.iter().enumerate() {
                assert_eq!(&branch.read(at as Version), expected, "{version} then {at}");
            }
        }
        for (version, expected) in model.seen.iter().enumerate() {
            assert_eq!(&model.read(version as Version), expected, "{version}");
        }
    }

    /// Checkpoints lie at least `CHECKPOINT_SPAN` versions and at least the previous one's
    /// survivors apart, so all of them hold about one index per version.
    #[test]
    fn checkpoints_hold_about_one_index_per_version() {
        let mut model = Model::new(Versioned::default());
        model.run(9, 5000, 0);
        let history = &model.record.history;
        for pair in history.checkpoints.windows(2) {
            let (before, after) = (&pair[0], &pair[1]);
            let apart = (after.version - before.version) as usize;
            assert!(apart >= (before.end - before.start).max(CHECKPOINT_SPAN));
            assert_eq!(after.start, before.end);
        }
        let last = history.checkpoints.last().unwrap();
        let bound = model.record.version() as usize + (last.end - last.start);
        assert!(history.checkpointed.len() <= bound);
        assert!(history.checkpoints.len() > 20);
        // Some lie apart by more than the span: the survivors decided it.
        let wide = |checkpoint: &Checkpoint| checkpoint.end - checkpoint.start > CHECKPOINT_SPAN;
        assert!(history.checkpoints.iter().any(wide));
    }
}
