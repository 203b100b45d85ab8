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
