//! `cargo xtask pjrt-releases`: XLA's PJRT C API (`pjrt_c_api.h`) at every API version we have
//! a real header of, for se-abi's `pjrt` module.
//!
//! TensorFlow's wheels ship XLA's PJRT header among their C headers (2.14 under
//! `tensorflow/include/tensorflow/compiler/xla/pjrt/c/`, 2.15 and later under
//! `tensorflow/include/xla/pjrt/c/`); jaxlib's wheels do not. For each TensorFlow release from
//! 2.14 (the first whose header has `PJRT_API_MINOR`) to 2.21 the xtask reads the header of the
//! `tensorflow-cpu` wheel installed in `DIR/tf-<release>`, preprocesses it with `gcc -E`, reads
//! its structs, typedefs and enums ([`dump`](mod@dump)), and compiles and runs a layout dump against it,
//! so that every offset, size and `*_STRUCT_SIZE` is gcc's. Written to
//! `crates/se-abi/releases/pjrt/header-<release>.json.gz`; `cargo xtask codegen` turns them into
//! `src/generated/pjrt.rs` ([`generate`](fn@generate)).

mod dump;
mod generate;
mod jax;

use std::fs;
use std::path::Path;

pub use generate::generate;

/// Where the facts live, relative to the workspace root.
pub const FACTS: &str = "crates/se-abi/releases/pjrt";

/// The TensorFlow releases whose wheel's `pjrt_c_api.h` is read, and where the header is below
/// the wheel's `tensorflow/include/`. 2.13's header has no PJRT API version; 2.12's wheel has no
/// PJRT header.
pub const HEADERS: &[(&str, &str)] = &[
    ("2.14.1", "tensorflow/compiler/xla/pjrt/c/pjrt_c_api.h"),
    ("2.15.1", "xla/pjrt/c/pjrt_c_api.h"),
    ("2.16.2", "xla/pjrt/c/pjrt_c_api.h"),
    ("2.17.1", "xla/pjrt/c/pjrt_c_api.h"),
    ("2.18.1", "xla/pjrt/c/pjrt_c_api.h"),
    ("2.19.1", "xla/pjrt/c/pjrt_c_api.h"),
    ("2.20.0", "xla/pjrt/c/pjrt_c_api.h"),
    ("2.21.0", "xla/pjrt/c/pjrt_c_api.h"),
];

/// `cargo xtask pjrt-releases`.
pub fn dump(root: &Path, venvs: &Path) -> Result<(), String> {
    let scratch = tempfile::tempdir().map_err(|e| format!("scratch directory: {e}"))?;
    let out = root.join(FACTS);
    fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    for &(release, header) in HEADERS {
        let venv = venvs.join(format!("tf-{release}"));
        crate::venv::ensure_tensorflow(&venv, release)?;
        let include = crate::se_abi_releases::site_packages_of(&venv)?.join("tensorflow/include");
        let facts = dump::layout_of(&include, header, release, scratch.path())?;
        println!(
            "{release}: PJRT {}.{}, {} structs",
            facts["pjrt_api_version"][0],
            facts["pjrt_api_version"][1],
            facts["structs"].as_array().map_or(0, Vec::len)
        );
        let mut text = serde_json::to_string_pretty(&facts).map_err(|e| e.to_string())?;
        text.push('\n');
        let path = out.join(format!("header-{release}.json.gz"));
        fs::write(&path, crate::gz::gzip(text.as_bytes())?)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    println!("now run `cargo xtask codegen` to regenerate se-abi's declarations");
    Ok(())
}
