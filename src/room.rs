//! The room a loaded window keeps for live events after it, and the room a call makes before it
//! changes anything.

use crate::error::Error;

/// Room for live events after a list of `items` loaded at once: a sixteenth of its size, and at
/// least 64. Without it every list of a window is full when the load ends, so the first live
/// append moved them all (measured in wasm over the first 99,000 events of typical 100,000: 28 ms
/// and 76 ms for the first calls).
pub(crate) fn live_room(items: usize) -> usize {
    (items / LIVE_ROOM_SHARE).max(LIVE_ROOM_LEAST)
}

/// See [`live_room`].
const LIVE_ROOM_SHARE: usize = 16;

/// See [`live_room`].
const LIVE_ROOM_LEAST: usize = 64;

/// Room for `additional` more items in `list`, or [`Error::OutOfMemory`] (the list unchanged)
/// when the memory cannot give it: a call makes room in its large lists before it changes
/// anything, so that running out of memory fails the call instead of aborting the module. The
/// list grows as `Vec::reserve` grows it (doubling): growing by half instead was measured and
/// not kept (docs/performance-notes.md).
pub(crate) fn try_room<T>(list: &mut Vec<T>, additional: usize) -> Result<(), Error> {
    list.try_reserve(additional).map_err(|_| {
        let items = list.len().saturating_add(additional);
        out_of_memory(items.saturating_mul(std::mem::size_of::<T>()))
    })
}

/// Checks that a block of `bytes` can be had, or returns [`Error::OutOfMemory`]. The block is
/// given back at once and the allocator keeps it, so the small allocations of a call (boxes,
/// shared values, tree nodes) then take it up without growing the memory.
pub(crate) fn headroom(bytes: usize) -> Result<(), Error> {
    let mut block: Vec<u8> = Vec::new();
    block
        .try_reserve_exact(bytes)
        .map_err(|_| out_of_memory(bytes))
}

fn out_of_memory(bytes: usize) -> Error {
    Error::OutOfMemory {
        bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
    }
}
