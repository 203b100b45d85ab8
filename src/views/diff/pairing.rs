//! Pairing items of two lists by name: the n-th item of a name with the n-th of the same name.

use super::intern::Interner;

/// For each name of `new`, the index in `old` of the name it pairs with, if any.
pub fn pair_by_name(old: &[&str], new: &[&str]) -> Vec<Option<usize>> {
    // The diff's line interner: names become small numbers without another hash map.
    let mut interner = Interner::new(old.len().saturating_add(new.len()));
    let old_ids: Vec<usize> = old
        .iter()
        .map(|name| interner.intern(name) as usize)
        .collect();
    let new_ids: Vec<usize> = new
        .iter()
        .map(|name| interner.intern(name) as usize)
        .collect();
    let names = interner.count();
    // Per name, the first unpaired old index; per old index, the next one of its name.
    let mut first = vec![usize::MAX; names];
    let mut next = vec![usize::MAX; old_ids.len()];
    for (at, name) in old_ids.iter().enumerate().rev() {
        if let (Some(head), Some(link)) = (first.get_mut(*name), next.get_mut(at)) {
            *link = *head;
            *head = at;
        }
    }
    new_ids
        .iter()
        .map(|name| {
            let head = first.get_mut(*name)?;
            let at = *head;
            *head = *next.get(at)?;
            Some(at)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_in_order_of_occurrence() {
        let old = ["a", "b", "a", "c"];
        let new = ["a", "a", "a", "c", "d"];
        assert_eq!(
            pair_by_name(&old, &new),
            [Some(0), Some(2), None, Some(3), None]
        );
        assert_eq!(pair_by_name(&[], &["x"]), [None]);
        assert!(pair_by_name(&["x"], &[]).is_empty());
    }
}
