//! Joining a walked head onto the kept rest of a window's per-event list, in place: the rest
//! moves once within its own allocation, however long the window.

/// `head` followed by `old` without its first `cut` items (dropped); leaves `old` empty.
pub(crate) fn join<T>(head: Vec<T>, old: &mut Vec<T>, cut: usize) -> Vec<T> {
    let mut joined = std::mem::take(old);
    joined.splice(..cut.min(joined.len()), head);
    joined
}
