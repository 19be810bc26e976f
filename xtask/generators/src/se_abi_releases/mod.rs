//! `cargo xtask se-abi-releases`: TensorFlow's StreamExecutor C API as each release shipped it,
//! taken from the real wheels, for se-abi.
//!
//! For every release from 2.5 (the first with PluggableDevice) to 2.21, the xtask finds the
//! wheel's C headers (in a venv `DIR/tf-<release>` when there is one, else in the wheel under
//! `--wheels`, downloaded with `pip download --no-deps --only-binary=:all:` when missing: the
//! older wheels are for older Pythons, but their headers are plain files), and:
//!
//! - **layouts**: preprocesses `stream_executor.h` with `gcc -E`, reads the declarations of its
//!   structs, typedefs and enums (a small reader for the C that header uses: [`CType`]), then
//!   compiles a layout dump against the header with `gcc` and runs it, so that every offset,
//!   size, alignment, enum signedness and `*_STRUCT_SIZE` value is the compiler's, not ours.
//!   Written to `crates/se-abi/releases/<release>/layout.json.gz`;
//! - **libraries and exports** (the ten releases that install on this Python, 2.12 ... 2.21):
//!   imports tensorflow in the venv, lists the shared libraries it loaded from the wheel, reads
//!   each one's soname, `DT_NEEDED`, version definitions and every symbol it exports, C++ names
//!   and symbol versions included (ELF, with the `object` crate), and asks the process which of
//!   them a global lookup (`dlsym(RTLD_DEFAULT)`) sees. Written to
//!   `crates/se-abi/releases/<release>/symbols.json.gz`, and the exports of all ten releases to
//!   one file, `crates/se-abi/releases/exports.txt.gz` (see [`symbols`]);
//! - **validation** (the same ten): what the release checks when it loads a plugin, from the
//!   message literals of its own `libtensorflow_framework.so.2` (see [`validation`]). Written to
//!   `crates/se-abi/releases/<release>/validation.json.gz`.
//!
//! Those facts are committed (gzip-compressed JSON) and are the source data of `cargo xtask
//! codegen`, which turns them into se-abi's `src/generated/` ([`generate`]).
//!
//! [`CType`]: c_header::CType
//! [`generate`]: fn@generate

mod c_header;
mod generate;
mod history;
mod layout;
mod release_tables;
mod symbols;
mod validation;
mod wheels;

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::gz::{gunzip, gzip};

use layout::layout_of;
use symbols::{libraries_of, merge_exports, read_exports, write_exports};
use validation::validation_of;
use wheels::{ensure_wheel, extract_headers, site_packages};

pub use generate::generate;
pub use history::{FactStruct, read_layouts};
pub(crate) use wheels::site_packages as site_packages_of;

/// Every release covered, oldest first, with the Python version its `tensorflow-cpu` wheel is
/// for when it does not install on this machine's Python (3.11): the latest patch release of
/// each minor version since PluggableDevice appeared (2.5).
pub const RELEASES: &[(&str, Option<&str>)] = &[
    ("2.5.3", Some("3.9")),
    ("2.6.5", Some("3.9")),
    ("2.7.4", Some("3.9")),
    ("2.8.4", Some("3.10")),
    ("2.9.3", Some("3.10")),
    ("2.10.1", Some("3.10")),
    ("2.11.1", Some("3.10")),
    ("2.12.1", None),
    ("2.13.1", None),
    ("2.14.1", None),
    ("2.15.1", None),
    ("2.16.2", None),
    ("2.17.1", None),
    ("2.18.1", None),
    ("2.19.1", None),
    ("2.20.0", None),
    ("2.21.0", None),
];

/// Where the facts live, relative to the workspace root.
pub const FACTS: &str = "crates/se-abi/releases";

/// The header, relative to the wheel's `tensorflow/include/`.
pub(super) const SE_HEADER: &str = "tensorflow/c/experimental/stream_executor/stream_executor.h";

/// `cargo xtask se-abi-releases`.
pub fn dump(root: &Path, venvs: &Path, wheels: &Path, only: &[String]) -> Result<(), String> {
    for release in only {
        if !RELEASES.iter().any(|(r, _)| r == release) {
            return Err(format!(
                "unknown release {release}; the covered releases are {}",
                RELEASES
                    .iter()
                    .map(|(r, _)| *r)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    let scratch = tempfile::tempdir().map_err(|e| format!("scratch directory: {e}"))?;
    let facts = root.join(FACTS);
    let mut exports = read_exports(&facts)?.into_map();
    for &(release, python) in RELEASES {
        if !only.is_empty() && !only.iter().any(|r| r == release) {
            continue;
        }
        let out = root.join(FACTS).join(release);
        fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        let venv = venvs.join(format!("tf-{release}"));
        let include = match python {
            None => {
                crate::venv::ensure_tensorflow(&venv, release)?;
                site_packages(&venv)?.join("tensorflow/include")
            }
            Some(python) => {
                let wheel = ensure_wheel(wheels, release, python)?;
                let dir = scratch.path().join(release);
                extract_headers(&wheel, &dir)?;
                dir.join("tensorflow/include")
            }
        };
        let layout = layout_of(&include, release, scratch.path())?;
        write_gz(&out.join("layout.json.gz"), &layout)?;
        println!(
            "{release}: {} structs",
            layout["structs"].as_array().map_or(0, Vec::len)
        );
        if python.is_none() {
            let tensorflow = site_packages(&venv)?.join("tensorflow");
            write_gz(
                &out.join("validation.json.gz"),
                &validation_of(&tensorflow, release)?,
            )?;
            let (libraries, exported) = libraries_of(&venv, release)?;
            write_gz(&out.join("symbols.json.gz"), &libraries)?;
            merge_exports(&mut exports, release, &exported);
            write_exports(&facts, &exports)?;
            println!("{release}: {} exported names in all", exports.len());
        }
    }
    println!("now run `cargo xtask codegen` to regenerate se-abi's declarations");
    Ok(())
}

fn write_gz(path: &Path, value: &Value) -> Result<(), String> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    text.push('\n');
    fs::write(path, gzip(text.as_bytes())?).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a committed fact file.
pub fn read_gz(path: &Path) -> Result<Value, String> {
    let bytes = fs::read(path).map_err(|e| {
        format!(
            "{}: {e}; run `cargo xtask se-abi-releases` to make it",
            path.display()
        )
    })?;
    serde_json::from_slice(&gunzip(&bytes, path)?).map_err(|e| format!("{}: {e}", path.display()))
}
