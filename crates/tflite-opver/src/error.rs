//! The crate's one error type.

/// Everything that can go wrong reading, judging or re-stamping a model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    // --- model reading, signatures, stamping (owned by the model/reader work) ---

    // --- operators, runtime versions, resolvers, delegates ---
}
