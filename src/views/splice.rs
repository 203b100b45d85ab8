//! How a call changed a list of the window, as `Array.prototype.splice` would say it: what a
//! viewer that shows slices of the list patches.

use serde::Serialize;

/// How a call changed one list, as `Array.prototype.splice` would: `removed` rows at `start`
/// gave way to `added` rows. Rows before `start` are the rows they were; the rows after the
/// added ones are the rows that followed the removed ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct ListSplice {
    /// The index of the first row that changed.
    pub start: usize,
    /// How many rows of the list before the call were removed or changed from `start` on.
    pub removed: usize,
    /// How many rows of the list after the call are new or changed from `start` on.
    pub added: usize,
    /// How many rows the list has after the call.
    pub total: usize,
}

impl ListSplice {
    /// No row changed in a list of `total` rows.
    pub(crate) fn unchanged(total: usize) -> ListSplice {
        ListSplice {
            start: total,
            removed: 0,
            added: 0,
            total,
        }
    }

    /// Every row of a list of `before` rows replaced by the `after` rows of the new list.
    pub(crate) fn replaced(before: usize, after: usize) -> ListSplice {
        ListSplice {
            start: 0,
            removed: before,
            added: after,
            total: after,
        }
    }

    /// `added` rows after the `before` rows of the list.
    pub(crate) fn appended(before: usize, added: usize) -> ListSplice {
        ListSplice {
            start: before,
            removed: 0,
            added,
            total: before.saturating_add(added),
        }
    }

    /// Whether no row changed.
    pub fn is_empty(&self) -> bool {
        self.removed == 0 && self.added == 0
    }
}

/// How a call changed each list of the window, each as a `ListSplice`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct ViewSplices {
    /// The chat cards, in chat order.
    pub cards: ListSplice,
    /// The trajectory requests.
    pub requests: ListSplice,
    /// The event lines.
    pub lines: ListSplice,
}

/// The splice between two lists given by their length and their rows by index: the common
/// prefix and suffix are kept, whatever lies between is reported.
pub(crate) fn splice_between<T: PartialEq>(
    before: usize,
    after: usize,
    old: impl Fn(usize) -> Option<T>,
    new: impl Fn(usize) -> Option<T>,
) -> ListSplice {
    let shorter = before.min(after);
    let prefix = (0..shorter)
        .find(|index| old(*index) != new(*index))
        .unwrap_or(shorter);
    let room = shorter.saturating_sub(prefix);
    let suffix = (1..=room)
        .find(|back| old(before.saturating_sub(*back)) != new(after.saturating_sub(*back)))
        .map_or(room, |back| back.saturating_sub(1));
    ListSplice {
        start: prefix,
        removed: before.saturating_sub(prefix).saturating_sub(suffix),
        added: after.saturating_sub(prefix).saturating_sub(suffix),
        total: after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn splice(old: &[i32], new: &[i32]) -> ListSplice {
        splice_between(
            old.len(),
            new.len(),
            |i| old.get(i).copied(),
            |i| new.get(i).copied(),
        )
    }

    #[test]
    fn splices_keep_the_common_prefix_and_suffix() {
        let apply = |old: &[i32], new: &[i32]| {
            let s = splice(old, new);
            let mut rows = old.to_vec();
            rows.splice(
                s.start..s.start + s.removed,
                new[s.start..s.start + s.added].to_vec(),
            );
            assert_eq!(rows, new, "{old:?} -> {new:?}: {s:?}");
            assert_eq!(s.total, new.len());
            s
        };
        assert_eq!(apply(&[1, 2, 3], &[1, 2, 3]), ListSplice::unchanged(3));
        assert_eq!(
            apply(&[1, 2, 3], &[0, 1, 2, 3]),
            ListSplice {
                start: 0,
                removed: 0,
                added: 1,
                total: 4
            }
        );
        assert_eq!(apply(&[1, 2], &[1, 2, 3]), ListSplice::appended(2, 1));
        assert_eq!(
            apply(&[1, 2, 3], &[1, 9, 3]),
            ListSplice {
                start: 1,
                removed: 1,
                added: 1,
                total: 3
            }
        );
        assert_eq!(
            apply(&[1, 1, 1], &[1, 1]),
            ListSplice {
                start: 2,
                removed: 1,
                added: 0,
                total: 2
            }
        );
        assert_eq!(apply(&[], &[4, 5]), ListSplice::replaced(0, 2));
        assert_eq!(apply(&[4, 5], &[]), ListSplice::replaced(2, 0));
    }
}
