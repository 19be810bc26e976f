//! Reading single fields the way every part of the reader needs: optional vectors and tables
//! counted, offsets of data kept outside the FlatBuffer, and a vector element found missing.

use crate::error::{DecodeError, Error};

/// The earlier of two offsets of data kept outside the FlatBuffer.
#[inline]
pub(super) fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// An offset of data kept outside the FlatBuffer: only offsets above 1 are (TF: "only valid if
/// > 1").
#[inline]
pub(super) fn external(offset: u64) -> Option<u64> {
    (offset > 1).then_some(offset)
}

/// A vector element planus' own reader found missing, after the vector's length said it was
/// there.
pub(super) fn missing(what: &'static str) -> Error {
    DecodeError::OutOfBounds { what }.into()
}

/// The length of an optional vector field, 0 when absent or unreadable.
pub(super) fn len_of<T>(field: planus::Result<Option<planus::Vector<'_, T>>>) -> usize {
    field.ok().flatten().map_or(0, |v| v.len())
}

/// 1 when an optional table (or a union with a known member) is present. An unknown union
/// member is not verified by TFLite, so not counted.
pub(super) fn present<T>(field: planus::Result<Option<T>>) -> usize {
    usize::from(matches!(field, Ok(Some(_))))
}
