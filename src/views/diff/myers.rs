//! Myers' O((N + M) D) diff of two number sequences (greedy, forward, with a trace to read the
//! edit script back), within a bound on the work.

/// The most work a diff may take: steps along diagonals plus diagonals tried (a few nanoseconds
/// each in wasm; see docs/diff.md). The trace holds one number (4 bytes) per diagonal tried, so
/// this also bounds the memory a diff takes to 4 MB.
pub const WORK_BOUND: usize = 1_000_000;

/// A diagonal no path reaches (off the grid).
const NONE: u32 = u32::MAX;

/// Which lines of `old` are removed and which of `new` are added, for a shortest edit script;
/// `None` when finding it would take more than [`WORK_BOUND`].
pub fn diff(old: &[u32], new: &[u32]) -> Option<(Vec<bool>, Vec<bool>)> {
    let (n, m) = (old.len(), new.len());
    // trace[d][i]: the furthest x on diagonal k = 2i - d (so y = x + d - 2i) after d edits.
    let mut trace: Vec<Vec<u32>> = Vec::new();
    let mut work = 0usize;
    for d in 0..=n.saturating_add(m) {
        let mut row = Vec::with_capacity(d.saturating_add(1));
        for i in 0..=d {
            let start = match trace.last() {
                None => Some(0),
                Some(previous) => choose(previous, i).map(|(x, _)| x),
            };
            let Some(mut x) = start else {
                row.push(NONE);
                continue;
            };
            let Some(mut y) = x.saturating_add(d).checked_sub(i.saturating_mul(2)) else {
                row.push(NONE);
                continue;
            };
            if x > n || y > m {
                row.push(NONE);
                continue;
            }
            while x < n && y < m && old.get(x) == new.get(y) {
                x = x.saturating_add(1);
                y = y.saturating_add(1);
            }
            work = work.saturating_add(x.saturating_sub(start.unwrap_or(0)));
            row.push(u32::try_from(x).unwrap_or(NONE));
            if x == n && y == m {
                trace.push(row);
                return Some(backtrack(&trace, n, m));
            }
        }
        work = work.saturating_add(d.saturating_add(1));
        if work > WORK_BOUND {
            return None;
        }
        trace.push(row);
    }
    debug_assert!(false, "a diff ends within n + m edits");
    None
}

/// Where diagonal `i` of the next row starts, from the row `previous`: down from diagonal
/// `k + 1` (an added line) or right from `k - 1` (a removed line), whichever reaches further,
/// down on a tie. Returns the x and whether it came down.
fn choose(previous: &[u32], i: usize) -> Option<(usize, bool)> {
    let reached = |at: usize| previous.get(at).copied().filter(|x| *x != NONE);
    let down = reached(i).map(|x| x as usize);
    let right = i
        .checked_sub(1)
        .and_then(reached)
        .map(|x| (x as usize).saturating_add(1));
    match (down, right) {
        (Some(down), Some(right)) if down >= right => Some((down, true)),
        (_, Some(right)) => Some((right, false)),
        (Some(down), None) => Some((down, true)),
        (None, None) => None,
    }
}

/// Reads the edits back from the end of the trace.
fn backtrack(trace: &[Vec<u32>], n: usize, m: usize) -> (Vec<bool>, Vec<bool>) {
    let mut removed = vec![false; n];
    let mut added = vec![false; m];
    let (mut x, mut y) = (n, m);
    for d in (1..trace.len()).rev() {
        let Some(previous) = trace.get(d.saturating_sub(1)) else {
            break;
        };
        // (x, y) is on diagonal k = x - y = 2i - d of row d.
        let Some(i) = x.saturating_add(d).checked_sub(y).map(|twice| twice / 2) else {
            break;
        };
        let Some((_, down)) = choose(previous, i) else {
            debug_assert!(false, "every diagonal on the path was reached");
            break;
        };
        // The previous row's point: on diagonal k + 1 (index i) or k - 1 (index i - 1).
        let from = if down { Some(i) } else { i.checked_sub(1) };
        let Some(px) = from.and_then(|at| previous.get(at)).map(|x| *x as usize) else {
            break;
        };
        let py = if down {
            px.saturating_add(d)
                .checked_sub(i.saturating_mul(2).saturating_add(1))
        } else {
            px.saturating_add(d)
                .saturating_add(1)
                .checked_sub(i.saturating_mul(2))
        };
        let Some(py) = py else {
            break;
        };
        let flag = if down {
            added.get_mut(py)
        } else {
            removed.get_mut(px)
        };
        if let Some(flag) = flag {
            *flag = true;
        }
        (x, y) = (px, py);
    }
    (removed, added)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The edit script's kept lines must be a common subsequence, and its length minimal for
    /// these small cases (checked against a dynamic-programming LCS).
    fn check(old: &[u32], new: &[u32]) {
        let (removed, added) = diff(old, new).unwrap();
        let kept_old: Vec<u32> = old
            .iter()
            .zip(&removed)
            .filter(|(_, r)| !**r)
            .map(|(v, _)| *v)
            .collect();
        let kept_new: Vec<u32> = new
            .iter()
            .zip(&added)
            .filter(|(_, a)| !**a)
            .map(|(v, _)| *v)
            .collect();
        assert_eq!(kept_old, kept_new, "{old:?} -> {new:?}");
        let mut table = vec![vec![0usize; new.len() + 1]; old.len() + 1];
        for i in (0..old.len()).rev() {
            for j in (0..new.len()).rev() {
                table[i][j] = if old[i] == new[j] {
                    table[i + 1][j + 1] + 1
                } else {
                    table[i + 1][j].max(table[i][j + 1])
                };
            }
        }
        assert_eq!(kept_old.len(), table[0][0], "{old:?} -> {new:?}");
    }

    #[test]
    fn shortest_scripts() {
        check(&[], &[]);
        check(&[1, 2, 3], &[]);
        check(&[], &[1, 2]);
        check(&[1, 2, 3, 1, 2, 2, 1], &[3, 2, 1, 2, 1, 3]);
        check(&[1, 1, 1], &[1, 1]);
        let mut state = 1u64;
        for _ in 0..300 {
            let mut next = |len: u64| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 33) % len
            };
            let old: Vec<u32> = (0..next(12)).map(|_| next(4) as u32).collect();
            let new: Vec<u32> = (0..next(12)).map(|_| next(4) as u32).collect();
            check(&old, &new);
        }
    }

    #[test]
    fn past_the_bound_gives_none() {
        let old: Vec<u32> = (0..5000).collect();
        let new: Vec<u32> = (5000..10000).collect();
        assert!(diff(&old, &new).is_none());
    }
}
