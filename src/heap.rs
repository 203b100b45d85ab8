//! What a window's structures keep on the heap, counted for the memory benchmark
//! (`bench/native/memory.rs`; feature `testkit`): one row per structure, with the number of
//! items and the bytes of their allocations as this target lays them out.

use std::mem::size_of;

/// Rows of structure name, item count and bytes, summed by name.
#[derive(Debug, Default)]
pub(crate) struct HeapProfile {
    rows: Vec<(&'static str, usize, usize)>,
}

impl HeapProfile {
    /// Adds `count` items taking `bytes` to the row `name`.
    pub fn add(&mut self, name: &'static str, count: usize, bytes: usize) {
        match self.rows.iter_mut().find(|(row, _, _)| *row == name) {
            Some((_, items, total)) => {
                *items = items.saturating_add(count);
                *total = total.saturating_add(bytes);
            }
            None => self.rows.push((name, count, bytes)),
        }
    }

    /// Adds a list's allocation (its capacity) to the row `name`.
    pub fn list<T>(&mut self, name: &'static str, list: &Vec<T>) {
        self.add(
            name,
            list.len(),
            list.capacity().saturating_mul(size_of::<T>()),
        );
    }

    /// Adds one owner's share of an `Rc` holding `value` bytes and shared by `owners`.
    pub fn shared(&mut self, name: &'static str, value: usize, owners: usize) {
        let counts = size_of::<usize>().saturating_mul(2);
        let bytes = value
            .saturating_add(counts)
            .checked_div(owners)
            .unwrap_or(0);
        self.add(name, 1, bytes);
    }

    /// The rows, in the order they were first added.
    pub fn into_rows(self) -> Vec<(&'static str, usize, usize)> {
        self.rows
    }
}
