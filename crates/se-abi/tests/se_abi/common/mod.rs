//! Helpers shared by the integration tests: the seed's `SE_Device` at every header version, the C
//! and Rust plugin builds, and the reference data in `tests/data/`.
#![allow(dead_code)]

pub mod c_build;
pub mod seed;

use std::path::{Path, PathBuf};

/// `tests/data/<name>`: TensorFlow reference data kept in the repository (listed in
/// `tests/data/README.md`). Panics, naming the file, when it is missing: these tests compare with
/// real TensorFlow and must never pass vacuously.
pub fn data(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    assert!(
        path.exists(),
        "test data {} is missing (tests/data/README.md lists every file and how it was made)",
        path.display()
    );
    path
}
