//! Where a release's headers come from: its venv (`crate::venv::ensure_tensorflow`) or, for the releases that do not install on this Python, its wheel, downloaded and
//! unpacked.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::venv::run;

/// The part of a wheel's `tensorflow/include/` the header needs: TF's C headers and the TSL
/// status header it includes (which moved between releases).
const INCLUDE_PARTS: &[&str] = &["tensorflow/c/", "tensorflow/tsl/c/", "tsl/c/", "xla/tsl/c/"];

pub(crate) fn site_packages(venv: &Path) -> Result<PathBuf, String> {
    let lib = venv.join("lib");
    let entries = fs::read_dir(&lib).map_err(|e| format!("{}: {e}", lib.display()))?;
    for entry in entries.flatten() {
        let candidate = entry.path().join("site-packages");
        if candidate.join("tensorflow").is_dir() {
            return Ok(candidate);
        }
    }
    Err(format!(
        "no site-packages/tensorflow below {}",
        lib.display()
    ))
}

/// The `tensorflow-cpu` wheel of `release` in `wheels`, downloaded for `python` if missing.
pub(super) fn ensure_wheel(wheels: &Path, release: &str, python: &str) -> Result<PathBuf, String> {
    let find = || -> Option<PathBuf> {
        let prefix = format!("tensorflow_cpu-{release}-");
        fs::read_dir(wheels)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".whl"))
            })
    };
    if let Some(wheel) = find() {
        return Ok(wheel);
    }
    fs::create_dir_all(wheels).map_err(|e| format!("{}: {e}", wheels.display()))?;
    println!(
        "downloading tensorflow-cpu=={release} (Python {python} wheel) into {}",
        wheels.display()
    );
    run(Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args([
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            python,
        ])
        .args([
            "--platform",
            "manylinux2010_x86_64",
            "--platform",
            "manylinux2014_x86_64",
        ])
        .args(["--platform", "manylinux_2_17_x86_64", "-d"])
        .arg(wheels)
        .arg(format!("tensorflow-cpu=={release}")))?;
    find().ok_or_else(|| format!("pip downloaded no tensorflow-cpu {release} wheel"))
}

/// Extracts the headers the layout dump needs from a wheel (a zip file), with Python's own
/// `zipfile` module: no zip crate for a one-off extraction.
pub(super) fn extract_headers(wheel: &Path, dir: &Path) -> Result<(), String> {
    let script = "import sys, zipfile\n\
                  z = zipfile.ZipFile(sys.argv[1])\n\
                  parts = sys.argv[3:]\n\
                  names = [n for n in z.namelist() if any(n.startswith('tensorflow/include/' + p) for p in parts)]\n\
                  z.extractall(sys.argv[2], names)\n";
    run(Command::new("python3")
        .args(["-c", script])
        .arg(wheel)
        .arg(dir)
        .args(INCLUDE_PARTS))
}
