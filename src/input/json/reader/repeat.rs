//! The repeat cache of `Reader::raw_value_repeating`: per slot, the last array or object read
//! there, taken again without checking it when the text repeats it at the same depth.

use super::*;

/// How many kinds of repeating values [`Reader::raw_value_repeating`] tells apart.
pub(crate) const SLOTS: usize = 2;

/// A value [`Reader::raw_value_repeating`] remembers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Memory<'a> {
    /// The value's text.
    pub text: &'a str,
    /// The depth it was read at.
    pub depth: usize,
    /// One more than that of the value it took the place of in its slot (0 for the first), so
    /// that among readers resumed one from the other a slot's generation names one text.
    pub generation: u32,
}

/// What [`Reader::raw_value_repeating`] remembers: per slot, the last array or object it read
/// there.
pub(crate) type Remembered<'a> = [Option<Memory<'a>>; SLOTS];

impl<'a> Reader<'a> {
    /// [`Reader::raw_value`] for values that often repeat the last array or object this
    /// method read in the same `slot` (one of [`SLOTS`]; in this reader, or in the one whose
    /// [`Reader::remembered`] it was [`resumed`](Reader::resume) with) at the same depth: when
    /// the text at the cursor starts with that value's text, it is taken as it is without being
    /// checked again. That is exact: checking those bytes at that depth went well before, and an
    /// array or object ends at its closing bracket without the reader looking further.
    ///
    /// Returns the text with the generation of the remembered value it is the text of (`None`
    /// for a value that is not an array or object, which is not remembered).
    pub fn raw_value_repeating(&mut self, slot: usize) -> Step<(&'a str, Option<u32>)> {
        self.peek();
        let start = self.pos;
        let last = self.remembered.get(slot).copied().flatten();
        if let Some(last) = last {
            let rest = self.bytes().get(start..).unwrap_or_default();
            let repeats = rest
                .get(..last.text.len())
                .is_some_and(|head| same_bytes(head, last.text.as_bytes()));
            if last.depth == self.depth && repeats {
                self.advance(last.text.len());
                return Ok((last.text, Some(last.generation)));
            }
        }
        let raw = self.raw_value()?;
        // Past the last generation, values are no longer remembered.
        let generation = last.map_or(Some(0), |last| last.generation.checked_add(1));
        match (
            raw.as_bytes().first(),
            self.remembered.get_mut(slot),
            generation,
        ) {
            (Some(b'[' | b'{'), Some(remembered), Some(generation)) => {
                *remembered = Some(Memory {
                    text: raw,
                    depth: self.depth,
                    generation,
                });
                Ok((raw, Some(generation)))
            }
            _ => Ok((raw, None)),
        }
    }
}
