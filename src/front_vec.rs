//! A vector that keeps spare room at its front, so that "load earlier" can put a page before a
//! window's items at the cost of the page (amortized), while the items stay one slice.
//!
//! The room holds stand-in values (clones of an item) instead of uninitialized memory: no
//! `unsafe`. When a prepend does not fit, the items move once into a new allocation with room
//! for about half as many again before them, so a run of prepends costs O(items prepended) on
//! the whole, like pushes at the end of a `Vec`.

use std::ops::{Deref, DerefMut};

/// A list of items with spare room before the first one; it reads as a slice.
#[derive(Clone)]
pub(crate) struct FrontVec<T> {
    /// The room (stand-ins) and then the items.
    slots: Vec<T>,
    /// Where the items start in `slots`.
    start: usize,
}

impl<T> Default for FrontVec<T> {
    fn default() -> FrontVec<T> {
        FrontVec::from(Vec::new())
    }
}

impl<T> From<Vec<T>> for FrontVec<T> {
    fn from(items: Vec<T>) -> FrontVec<T> {
        FrontVec {
            slots: items,
            start: 0,
        }
    }
}

impl<T> Deref for FrontVec<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.slots.get(self.start..).unwrap_or_default()
    }
}

impl<T> DerefMut for FrontVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.slots.get_mut(self.start..).unwrap_or_default()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for FrontVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// What fills the room before the items: a value that owns nothing, cheap to make.
pub(crate) trait Spare {
    /// A stand-in value.
    fn spare() -> Self;
}

impl<T: Spare> FrontVec<T> {
    /// Adds `items` after the last item.
    pub fn extend(&mut self, items: Vec<T>) {
        self.slots.extend(items);
    }

    /// Replaces the first `cut` items (all of them when there are fewer) with the items of
    /// `front`. Costs O(`cut` + `front.len()`) while the room before the items suffices, else
    /// moves the kept items once into a new allocation with room for half as many again before
    /// them.
    #[inline(never)]
    pub fn replace_front(&mut self, cut: usize, mut front: FrontVec<T>) {
        let mut end = self.start.saturating_add(cut).min(self.slots.len());
        let added = front.len();
        if added > end {
            let kept = self.slots.len().saturating_sub(end);
            let room = added.saturating_add(added.saturating_add(kept) / 2);
            let mut slots = Vec::new();
            slots.resize_with(room.saturating_add(kept), T::spare);
            swap(slots.get_mut(room..), self.slots.get_mut(end..));
            self.slots = slots;
            self.start = room;
            end = room;
        }
        let start = end.saturating_sub(added);
        // The new items go in; what they replace (stand-ins, cut items) leaves with `front`.
        swap(self.slots.get_mut(start..end), Some(&mut front));
        // The cut items before them become stand-ins.
        let mut spares = Vec::new();
        spares.resize_with(start.saturating_sub(self.start), T::spare);
        swap(self.slots.get_mut(self.start..start), Some(&mut spares));
        self.start = start;
    }
}

/// Swaps the items of two slices of the same length.
fn swap<T>(a: Option<&mut [T]>, b: Option<&mut [T]>) {
    if let (Some(a), Some(b)) = (a, b) {
        if a.len() == b.len() {
            a.swap_with_slice(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    impl Spare for u32 {
        fn spare() -> u32 {
            0
        }
    }

    impl Spare for Rc<u32> {
        fn spare() -> Rc<u32> {
            Rc::new(0)
        }
    }

    #[test]
    fn prepends_before_the_items_and_reads_as_one_slice() {
        let mut list = FrontVec::from(vec![5, 6, 7]);
        list.replace_front(0, FrontVec::from(vec![3, 4]));
        assert_eq!(*list, [3, 4, 5, 6, 7]);
        list.extend(vec![8, 9]);
        list.replace_front(1, FrontVec::from(vec![1, 2]));
        assert_eq!(*list, [1, 2, 4, 5, 6, 7, 8, 9]);
        list.replace_front(3, FrontVec::default());
        assert_eq!(*list, [5, 6, 7, 8, 9]);
        list.replace_front(99, FrontVec::from(vec![0]));
        assert_eq!(*list, [0]);
        list.replace_front(1, FrontVec::default());
        assert!(list.is_empty());
        list.replace_front(0, FrontVec::from(vec![4]));
        assert_eq!(*list, [4]);
        list[0] = 3;
        assert_eq!(format!("{list:?}"), "[3]");
        let mut empty: FrontVec<u32> = FrontVec::default();
        empty.replace_front(2, FrontVec::default());
        assert!(empty.is_empty());
    }

    // Against a plain Vec: random cuts, prepends and pushes.
    #[test]
    fn agrees_with_a_vec() {
        let mut random = crate::test_random::seeded(7);
        let mut list = FrontVec::default();
        let mut model: Vec<u32> = Vec::new();
        let mut next = 0u32;
        for _ in 0..3000 {
            if random(4) == 0 {
                next += 1;
                list.extend(vec![next]);
                model.push(next);
            } else {
                let cut = random(4) as usize;
                let count = random(12) as usize;
                let front: Vec<u32> = (0..count as u32).map(|i| next + 1 + i).collect();
                next += count as u32;
                // A front that itself has room before its items, half of the time.
                let mut given = FrontVec::from(front.get(count / 2..).unwrap_or_default().to_vec());
                given.replace_front(
                    0,
                    FrontVec::from(front.get(..count / 2).unwrap_or_default().to_vec()),
                );
                list.replace_front(cut, given);
                model.splice(..cut.min(model.len()), front);
            }
            assert_eq!(*list, *model);
        }
    }

    // A prepend that fits the room fills it without moving the items, and releases what the
    // cut items held.
    #[test]
    fn a_prepend_into_the_room_keeps_the_allocation_and_releases_cut_items() {
        let mut list = FrontVec::from(vec![Rc::new(10)]);
        list.replace_front(0, FrontVec::from((0..10).map(Rc::new).collect::<Vec<_>>()));
        let address = list.as_ptr();
        let cut = Rc::clone(&list[0]);
        list.replace_front(2, FrontVec::from(vec![Rc::new(20)]));
        assert_eq!(Rc::strong_count(&cut), 1, "a cut item is released");
        assert_eq!(
            list.iter().map(|item| **item).collect::<Vec<_>>(),
            [20, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        );
        assert_eq!(list.as_ptr(), address.wrapping_add(1), "no move");
        list.replace_front(0, FrontVec::from((30..35).map(Rc::new).collect::<Vec<_>>()));
        assert_eq!(list.as_ptr(), address.wrapping_sub(4), "no move");
        assert_eq!(list.len(), 15);
    }
}
