//! Marks into a subgraph's pools: the 4-byte positions a read model keeps instead of `usize`s
//! (tensor indices, tensor classes, operator forms), and the error when a model has more than
//! a `u32` counts.

use crate::error::{DecodeError, Error};

/// A position in a subgraph's index pool, as stored in [`OperatorFacts`](crate::model::subgraph::OperatorFacts).
#[inline(always)] // into `digest_operator`, for the reason given there
pub(crate) fn pool_mark(position: usize) -> Result<u32, Error> {
    u32::try_from(position).map_err(|_| too_many_indices())
}

#[cold]
pub(crate) fn too_many_indices() -> Error {
    DecodeError::TooManyTensorIndices.into()
}
