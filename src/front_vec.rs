//! A vector that keeps spare room at its front, so that "load earlier" can put a page before a
//! window's events at the cost of the page (amortized), while the events stay one slice.
//!
//! The room holds stand-in values that own nothing ([`Spare`]) instead of uninitialized memory:
//! no `unsafe`. When a page does not fit, the items move once into a new allocation with room
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
        debug_assert!(
            self.start <= self.slots.len(),
            "the room is inside the slots"
        );
        self.slots.get(self.start..).unwrap_or_default()
    }
}

impl<T> DerefMut for FrontVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        let start = self.start;
        self.slots.get_mut(start..).unwrap_or_default()
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

impl<T> FrontVec<T> {
    /// The room and the items, as allocated (for the heap profile).
    #[cfg(feature = "testkit")]
    pub fn slots(&self) -> &Vec<T> {
        &self.slots
    }
}

impl<T: Spare> FrontVec<T> {
    /// Adds `items` after the last item.
    pub fn extend(&mut self, items: Vec<T>) {
        self.slots.extend(items);
    }

    /// Drops the first `count` items (all of them when there are fewer): their slots join the
    /// room, holding stand-ins again.
    pub fn drop_front(&mut self, count: usize) {
        let end = self.start.saturating_add(count).min(self.slots.len());
        for slot in self.slots.get_mut(self.start..end).unwrap_or_default() {
            *slot = T::spare();
        }
        self.start = end;
    }

    /// The bytes [`FrontVec::prepend`] of `added` items allocates (none while the room before
    /// the items suffices).
    pub fn prepend_bytes(&self, added: usize) -> usize {
        if added <= self.start {
            return 0;
        }
        let kept = self.slots.len().saturating_sub(self.start);
        let room = added.saturating_add(added.saturating_add(kept) / 2);
        let slots = room.saturating_add(self.slots.len());
        slots.saturating_mul(std::mem::size_of::<T>())
    }

    /// The bytes [`FrontVec::prepend_last`] of `added` items allocates, at most.
    pub fn prepend_last_bytes(&self, added: usize) -> usize {
        let items = self.slots.len().saturating_sub(self.start);
        let slots = items.saturating_add(added);
        slots.saturating_mul(std::mem::size_of::<T>())
    }

    /// Puts `items` before the first item when no more will come: the room is given back
    /// ([`FrontVec::release_room`]). A page larger than the room takes the items after its
    /// own instead (one allocation of the two together, where making room and then giving it
    /// back made two, the first half as large again).
    pub fn prepend_last(&mut self, mut items: Vec<T>) {
        if items.len() > self.start {
            items.extend(self.slots.drain(self.start..));
            self.slots = items;
            self.start = 0;
        } else {
            self.prepend(items);
            self.release_room();
        }
    }

    /// Puts `items` before the first item. Costs O(`items.len()`) while the room before the
    /// items suffices, else moves the items once into a new allocation with room for half as
    /// many again before them.
    #[inline(never)]
    pub fn prepend(&mut self, mut items: Vec<T>) {
        let added = items.len();
        if added > self.start {
            let kept = self.slots.len().saturating_sub(self.start);
            let room = added.saturating_add(added.saturating_add(kept) / 2);
            let mut slots = Vec::with_capacity(room.saturating_add(self.slots.len()));
            slots.resize_with(room, T::spare);
            // The old room's stand-ins come along, and stay room.
            slots.extend(std::mem::take(&mut self.slots));
            self.slots = slots;
            self.start = self.start.saturating_add(room);
        }
        let start = self.start.saturating_sub(added);
        // The new items go in; the stand-ins they replace leave with `items`.
        swap(self.slots.get_mut(start..self.start), Some(&mut items));
        self.start = start;
    }
}

impl<T> FrontVec<T> {
    /// Adds `item` after the last item.
    pub fn push(&mut self, item: T) {
        self.slots.push(item);
    }

    /// Drops the items from index `length` on (none when there are no more than `length`).
    pub fn truncate(&mut self, length: usize) {
        self.slots.truncate(self.start.saturating_add(length));
    }

    /// Room for `additional` more items after the last one, or [`crate::Error::OutOfMemory`] (the
    /// list unchanged) when the memory cannot give it.
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), crate::error::Error> {
        crate::room::try_room(&mut self.slots, additional)
    }

    /// The items, as a `Vec` of their own size.
    pub fn into_vec(mut self) -> Vec<T> {
        self.release_room();
        self.slots
    }

    /// Gives the room before the items back: the items move once into an allocation of their
    /// own size. For when no more prepends will come.
    pub fn release_room(&mut self) {
        if self.start > 0 {
            self.slots = self.slots.split_off(self.start);
            self.start = 0;
        }
    }
}

/// Swaps the items of two slices of the same length.
fn swap<T>(a: Option<&mut [T]>, b: Option<&mut [T]>) {
    match (a, b) {
        (Some(a), Some(b)) if a.len() == b.len() => a.swap_with_slice(b),
        _ => debug_assert!(
            false,
            "the room and the page must be two slices of one length"
        ),
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
        let mut list = FrontVec::from(vec![5u32, 6, 7]);
        list.prepend(vec![3, 4]);
        assert_eq!(*list, [3, 4, 5, 6, 7]);
        list.extend(vec![8, 9]);
        list.prepend(vec![1, 2]);
        assert_eq!(*list, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
        list.prepend(Vec::new());
        assert_eq!(*list, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(format!("{:?}", FrontVec::from(vec![3])), "[3]");
        let mut empty: FrontVec<u32> = FrontVec::default();
        empty.prepend(Vec::new());
        assert!(empty.is_empty());
        empty.prepend(vec![1]);
        assert_eq!(*empty, [1]);
    }

    #[test]
    fn a_last_page_leaves_no_room() {
        let mut random = crate::test_random::seeded(11);
        for _ in 0..200 {
            let mut list = FrontVec::from(vec![100u32, 101]);
            let mut model = vec![100u32, 101];
            for page in 0..random(4) as u32 {
                let items: Vec<u32> = (0..random(6) as u32).map(|i| page * 10 + i).collect();
                list.prepend(items.clone());
                model.splice(..0, items);
            }
            let last: Vec<u32> = (0..random(9) as u32).map(|i| 1000 + i).collect();
            let bytes = list.prepend_last_bytes(last.len());
            model.splice(..0, last.clone());
            list.prepend_last(last);
            assert_eq!(*list, *model);
            assert_eq!((list.start, list.slots.len()), (0, model.len()));
            assert_eq!(bytes, model.len() * 4);
        }
    }

    #[test]
    fn releasing_the_room_keeps_the_items() {
        let mut list = FrontVec::from(vec![5u32, 6]);
        list.prepend(vec![3, 4]);
        list.prepend(vec![2]);
        assert!(list.slots.len() > list.len());
        list.release_room();
        assert_eq!(*list, [2, 3, 4, 5, 6]);
        assert_eq!(list.slots.len(), 5);
        list.release_room();
        list.prepend(vec![1]);
        list.extend(vec![7]);
        assert_eq!(*list, [1, 2, 3, 4, 5, 6, 7]);
    }

    // Against a plain Vec: random prepends and appends.
    #[test]
    fn agrees_with_a_vec() {
        let mut random = crate::test_random::seeded(7);
        let mut list = FrontVec::default();
        let mut model: Vec<u32> = Vec::new();
        let mut next = 0u32;
        for _ in 0..3000 {
            let count = random(12) as u32;
            let items: Vec<u32> = (next + 1..=next + count).collect();
            next += count;
            if random(3) == 0 {
                list.extend(items.clone());
                model.extend(items);
            } else {
                list.prepend(items.clone());
                model.splice(..0, items);
            }
            assert_eq!(*list, *model);
        }
    }

    // A page that fits the room goes in without moving the items; nothing is held twice or
    // kept after the list is dropped.
    #[test]
    fn a_prepend_into_the_room_keeps_the_allocation() {
        let mut list = FrontVec::from(vec![Rc::new(10)]);
        list.prepend((0..10).map(Rc::new).collect());
        let address = list.as_ptr();
        list.prepend(vec![Rc::new(20)]);
        assert_eq!(list.as_ptr(), address.wrapping_sub(1), "no move");
        list.prepend((30..34).map(Rc::new).collect());
        assert_eq!(list.as_ptr(), address.wrapping_sub(5), "no move");
        assert_eq!(
            list.iter().map(|item| **item).collect::<Vec<_>>(),
            [30, 31, 32, 33, 20, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        );
        let item = Rc::clone(&list[5]);
        assert_eq!(Rc::strong_count(&item), 2);
        drop(list);
        assert_eq!(Rc::strong_count(&item), 1);
    }

    #[test]
    fn drops_from_the_front_and_takes_the_room_again() {
        let mut list = FrontVec::from(vec![Rc::new(5), Rc::new(6), Rc::new(7)]);
        let first = Rc::clone(&list[0]);
        list.drop_front(2);
        assert_eq!(*list, [Rc::new(7)]);
        // The dropped item's slot holds a stand-in, not the item.
        assert_eq!(Rc::strong_count(&first), 1);
        list.prepend(vec![Rc::new(3), Rc::new(4)]);
        assert_eq!(list.slots.len(), 3, "the page went into the room");
        list.push(Rc::new(8));
        for item in list.iter_mut() {
            *item = Rc::new(**item * 10);
        }
        assert_eq!(*list, [Rc::new(30), Rc::new(40), Rc::new(70), Rc::new(80)]);
        list.drop_front(9);
        assert!(list.is_empty());
        let mut numbers = FrontVec::from(vec![2u32]);
        numbers.try_reserve(4).unwrap();
        numbers.prepend(vec![1]);
        assert_eq!(numbers.into_vec(), vec![1, 2]);
    }
}
