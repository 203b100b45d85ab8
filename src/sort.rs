//! One sort for the whole crate. Each `sort_unstable` on another element type adds about 3 KB
//! to the wasm module, so items are sorted by a key of three integers through one instantiation.
//! The generic part is small: the keys made and the items swapped into place; the sort and the
//! swaps it needs are worked out once, on keys alone (a copy of them per element type, with the
//! list collects it took, was about 700 bytes of wasm each).

/// A sort key: three integers, compared in order.
pub(crate) type Key = (i64, i64, i64);

/// Sorts `items` by `key`; items with equal keys keep their order.
pub(crate) fn sort_by_key<T>(items: &mut [T], key: impl Fn(&T) -> Key) {
    let mut order = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        order.push((key(item), index));
    }
    for (at, from) in swaps(order) {
        items.swap(at, from);
    }
}

/// The swaps, in order, that sort the items keyed by `order` (each key beside its item's
/// index), equal keys in index order; none when they are in order already.
fn swaps(mut order: Vec<(Key, usize)>) -> Vec<(usize, usize)> {
    // Cards come mostly in order already (a load's are in seq order): then nothing moves.
    if order.is_sorted() {
        return Vec::new();
    }
    order.sort_unstable();
    // Position `at` takes the item at `order[at].1`: each cycle of that permutation is walked
    // once, its positions marked done (`usize::MAX`) as they are filled.
    let mut swaps = Vec::new();
    for start in 0..order.len() {
        let mut at = start;
        while let Some((_, from)) = order.get_mut(at) {
            let from = std::mem::replace(from, usize::MAX);
            if from == start || from == usize::MAX {
                break;
            }
            swaps.push((at, from));
            at = from;
        }
    }
    swaps
}

/// A key part that orders floats as `f64::total_cmp` does, largest first, so a sort by floats
/// goes through `sort_by_key` too (a stable `sort_by` on another type was 3.9 KB of wasm).
pub(crate) fn descending(value: f64) -> i64 {
    const SIGN: u64 = 1 << 63;
    let bits = value.to_bits();
    // Unsigned, in total order: negative floats with all bits flipped (larger magnitudes lower),
    // the others above them.
    let ascending = if bits & SIGN == 0 { bits | SIGN } else { !bits };
    // Flipped for largest first; the sign bit flipped maps the unsigned order onto the signed.
    i64::from_ne_bytes((!ascending ^ SIGN).to_ne_bytes())
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
    fn random_lists_sort_as_the_stable_sort_of_std() {
        let mut random = crate::test_random::seeded(7);
        for round in 0..300 {
            let length = usize::try_from(random(40)).unwrap_or(0) + round / 10;
            let distinct = random(6) + 1;
            let items: Vec<(i64, usize)> = (0..length)
                .map(|index| (i64::try_from(random(distinct)).unwrap_or(0), index))
                .collect();
            let mut expected = items.clone();
            expected.sort_by_key(|(key, _)| *key);
            let mut sorted = items;
            sort_by_key(&mut sorted, |(key, _)| (0, *key, 0));
            assert_eq!(sorted, expected, "round {round}");
        }
    }

    #[test]
    fn descending_orders_floats_as_total_cmp_reversed() {
        let floats = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            2.5,
            1e300,
            f64::INFINITY,
        ];
        for a in floats {
            for b in floats {
                assert_eq!(
                    descending(a).cmp(&descending(b)),
                    b.total_cmp(&a),
                    "{a} against {b}"
                );
            }
        }
        let mut items = vec![(1.0, 'a'), (3.0, 'b'), (1.0, 'c'), (0.0, 'd'), (3.0, 'e')];
        sort_by_key(&mut items, |(x, _)| (descending(*x), 0, 0));
        assert_eq!(
            items,
            vec![(3.0, 'b'), (3.0, 'e'), (1.0, 'a'), (1.0, 'c'), (0.0, 'd')]
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
