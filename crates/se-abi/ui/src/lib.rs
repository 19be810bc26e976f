//! Nothing but a home for se-abi's compile-fail cases (`tests/ui/`, run by `tests/layout_lock.rs`).
//!
//! trybuild builds each case in a scratch project with its package's dependencies and
//! dev-dependencies. As a test of se-abi itself, that meant se-abi's dev-dependencies too (its own
//! `cli` feature with clap, proptest, object, serde_json...), compiled again in trybuild's target
//! directory: the slowest test of a cold `cargo test --workspace`. Here the cases need se-abi alone.
