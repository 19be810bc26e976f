//! tflite-opver's integration tests, in one test binary (one link instead of one per file).
//!
//! Each module was a test file of its own; `common` holds the helpers they share. The tests
//! read the TensorFlow reference data in `tests/data/` (listed in its README), which the
//! published package does not ship: `Cargo.toml` runs this binary only with the `cli` feature,
//! which the crate's self dev-dependency turns on in the repository.

mod common;

mod allocations;
mod cli;
mod delegate_matrix;
mod delegate_presets;
mod hostile;
mod kernels;
mod layout;
mod loader_limits;
mod oracle_models;
mod oracle_sig_cases;
mod props;
mod real_stamps;
mod resolver_matrix;
mod resolver_presets;
mod runtime_oracle;
mod runtime_props;
mod runtimes;
mod stamp_oracle;
mod stamp_roundtrip;
mod user_rules;
mod version_reasons;
mod version_rules;
mod wild_models;
