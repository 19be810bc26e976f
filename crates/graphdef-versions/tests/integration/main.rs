//! graphdef-versions' integration tests, in one binary: each module was once a test file of
//! its own, and one binary links once instead of once per file.
//!
//! TensorFlow's reference data is in `tests/data/` (its README says where each file comes
//! from); `common` reads it and builds the small graphs the tests share.

mod common;

mod artifact;
mod checkpoint;
mod cli;
mod history;
mod hostile;
mod large_graphs;
mod matrix;
mod oracle;
mod playbooks;
mod policy;
mod release_cases;
mod releases;
