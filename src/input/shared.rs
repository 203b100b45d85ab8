//! Values shared through `Rc`: interned tools and config, prompt texts. Equality skips comparing
//! the values when both sides are one allocation: comparing 2 KB prompt texts byte by byte cost
//! a wasm load or prepend tens of milliseconds. In the wasm build, while one result is converted
//! to JS (see `wasm::cache`), each distinct `Rc` is converted once and the same JS value is
//! used wherever it appears again: a `views()` of a long session repeats one tools list and one
//! prompt text in thousands of headers, and building each copy anew dominated the conversion.

use std::rc::Rc;

/// Whether two shared values are equal (one allocation, or equal values).
pub(crate) fn same<T: ?Sized + PartialEq>(a: &Rc<T>, b: &Rc<T>) -> bool {
    Rc::ptr_eq(a, b) || a == b
}

/// [`same`] for optional shared values.
pub(crate) fn same_optional<T: ?Sized + PartialEq>(a: &Option<Rc<T>>, b: &Option<Rc<T>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same(a, b),
        (None, None) => true,
        _ => false,
    }
}
