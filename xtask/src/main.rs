//! Workspace automation, run as `cargo xtask <command>`.
//!
//! - `cargo xtask demo` runs each crate's `examples/tour.rs` in turn. It is run here, by a
//!   program that depends on clap alone, so a cold demo compiles only the four crates it shows.
//! - Every other command is a code generator or a fact maker, and is handed to the
//!   `xtask-generators` package (`generators/`): `cargo xtask codegen [--check]`,
//!   `abi-check [--bless]`, `tf-releases`, `se-abi-releases`, `tflite-runtimes`,
//!   `ifrt-jaxlib-releases`. Its first run compiles protox, prost-build and planus; `cargo xtask
//!   help` lists its commands. It is a package of its own, outside the workspace, with its own
//!   lock file (as `fuzz/` is), so that `cargo test --workspace` does not compile it either;
//!   `.ci/run` runs its tests.

mod demo;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "Workspace automation for the compat-versioning crates",
    // `cargo xtask help` goes to the generators, whose help lists their commands.
    disable_help_subcommand = true,
    after_help = "Code generation and TensorFlow facts are run by the xtask-generators package:\n  \
                  cargo xtask codegen [--check]   regenerate crates/*/src/generated/\n  \
                  cargo xtask abi-check [--bless] se-abi's layout snapshots\n  \
                  cargo xtask tf-releases | se-abi-releases | tflite-runtimes   release facts\n  \
                  cargo xtask ifrt-jaxlib-releases   jaxlib's IFRT Proxy clients\n\
                  `cargo xtask help` lists them all (and builds the generators)."
)]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Run every crate's `examples/tour.rs`, one after the other (builds no code generator).
    Demo,
    /// Any other command: run by the xtask-generators package (`cargo xtask help` lists them).
    #[command(external_subcommand)]
    Generator(Vec<OsString>),
}

fn main() -> ExitCode {
    let root = workspace_root();
    let result = match Cli::parse().command {
        Task::Demo => demo::run(&root).map(|()| ExitCode::SUCCESS),
        Task::Generator(args) => generators(&root, &args),
    };
    result.unwrap_or_else(|message| {
        eprintln!("error: {message}");
        ExitCode::FAILURE
    })
}

/// Runs `cargo run --manifest-path xtask/generators/Cargo.toml -- ARGS` and passes its exit on.
/// The generator has said what went wrong, if anything: only its exit status is passed on.
///
/// The generators are a package of their own, outside the workspace (so that `cargo test
/// --workspace` does not build them); they build into the workspace's target directory, where
/// they share the dependencies both use, unless `CARGO_TARGET_DIR` says otherwise.
fn generators(root: &std::path::Path, args: &[OsString]) -> Result<ExitCode, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(root)
        // Not `--quiet`: the generators' first build takes a minute or two, and shows it.
        .arg("run")
        .arg("--manifest-path")
        .arg(root.join("xtask/generators/Cargo.toml"));
    if std::env::var_os("CARGO_TARGET_DIR").is_none() {
        command.arg("--target-dir").arg(root.join("target"));
    }
    let status = command
        .arg("--")
        .args(args)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    match status.code() {
        Some(code) => Ok(ExitCode::from(u8::try_from(code).unwrap_or(1))),
        None => Err(format!("xtask-generators ended by a signal ({status})")),
    }
}

/// The workspace root: the parent of this package's manifest directory.
///
/// Cargo sets `CARGO_MANIFEST_DIR` when it runs the binary (`cargo xtask` is `cargo run`); that
/// is the checkout being worked on. The path compiled in is only a fallback: a binary built by
/// another checkout sharing the target directory (CI's fresh clone does) would point there.
fn workspace_root() -> PathBuf {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest_dir
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}
