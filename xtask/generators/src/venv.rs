//! The scratch Python environments the fact-making commands (`tf-releases`,
//! `se-abi-releases`, `tflite-runtimes`) install real wheels into, and the programs they run.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `command`, failing with the command and its exit status unless it succeeds.
pub fn run(command: &mut Command) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("cannot run {command:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{command:?} failed: {status}"))
    }
}

/// Runs `command` and returns what it printed, failing with its standard error unless it
/// succeeds.
pub fn output(command: &mut Command) -> Result<String, String> {
    let out = command
        .output()
        .map_err(|e| format!("cannot run {command:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{command:?} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("{command:?} printed non-UTF-8"))
}

/// The venv's interpreter.
pub fn python(venv: &Path) -> PathBuf {
    venv.join("bin/python")
}

/// Whether the venv exists and its interpreter imports `tensorflow`.
pub fn imports_tensorflow(venv: &Path) -> bool {
    let python = python(venv);
    python.exists()
        && Command::new(&python)
            .args(["-c", "import tensorflow"])
            .env("TF_CPP_MIN_LOG_LEVEL", "3")
            .output()
            .is_ok_and(|output| output.status.success())
}

/// Creates the venv (`python3 -m venv`) and installs `requirements` into it with pip.
pub fn create(venv: &Path, requirements: &[String]) -> Result<(), String> {
    println!(
        "creating {} with {}",
        venv.display(),
        requirements.join(" ")
    );
    run(Command::new("python3").arg("-m").arg("venv").arg(venv))?;
    run(Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .args(requirements))
}

/// A venv with `tensorflow-cpu==release`: the one at `venv` if it imports tensorflow, else made
/// there.
pub fn ensure_tensorflow(venv: &Path, release: &str) -> Result<(), String> {
    if imports_tensorflow(venv) {
        return Ok(());
    }
    create(venv, &[format!("tensorflow-cpu=={release}")])
}
