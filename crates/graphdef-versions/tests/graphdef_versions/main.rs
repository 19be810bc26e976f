//! graphdef-versions' integration tests, in one test binary (one link instead of one per file).
//!
//! Each module was a test file of its own; `common` holds the helpers they share. The tests
//! read the TensorFlow reference data in `tests/data/` (listed in its README), which the
//! published package does not ship: `Cargo.toml` runs this binary only with the `cli` feature,
//! which the crate's self dev-dependency turns on in the repository.

mod common;

mod artifact;
mod checkpoint;
mod cli;
mod history;
mod hostile;
mod large_graphs;
mod layout;
mod matrix;
mod oracle;
mod playbooks;
mod policy;
mod release_cases;
mod releases;
mod saved_models;
mod wild;
