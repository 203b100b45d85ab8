//! One sort for the whole crate. Each `sort_unstable` on another element type adds about 3 KB
//! to the wasm module, so items are sorted by a key of three integers through one instantiation.

/// A sort key: three integers, compared in order.
pub(crate) type Key = (i64, i64, i64);

/// Sorts `items` by `key`; items with equal keys keep their order.
pub(crate) fn sort_by_key<T>(items: &mut Vec<T>, key: impl Fn(&T) -> Key) {
    let mut order: Vec<(Key, usize)> = items.iter().map(key).zip(0..).collect();
    // Cards come mostly in order already (a load's are in seq order): then nothing moves.
    if order.is_sorted() {
        return;
    }
    order.sort_unstable();
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(
        order
            .iter()
            .filter_map(|(_, index)| slots.get_mut(*index).and_then(Option::take)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_key_and_keeps_ties_in_order() {
        let mut items = vec![(3, 'a'), (1, 'b'), (3, 'c'), (-2, 'd'), (1, 'e')];
        sort_by_key(&mut items, |(n, _)| (0, *n, 0));
        assert_eq!(
            items,
            vec![(-2, 'd'), (1, 'b'), (1, 'e'), (3, 'a'), (3, 'c')]
        );
    }

    #[test]
    fn items_already_in_order_stay() {
        let mut items = vec![(1, 'a'), (1, 'b'), (2, 'c')];
        sort_by_key(&mut items, |(n, _)| (*n, 0, 0));
        assert_eq!(items, vec![(1, 'a'), (1, 'b'), (2, 'c')]);
        let mut one = vec![(5, 'x')];
        sort_by_key(&mut one, |(n, _)| (*n, 0, 0));
        assert_eq!(one, vec![(5, 'x')]);
    }
}
