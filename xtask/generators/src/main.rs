//! The code generators and fact makers behind `cargo xtask <command>`.
//!
//! The `xtask` package (one folder up) is what `cargo xtask` runs: it runs `demo` itself and hands
//! every other command to this program (`cargo run --manifest-path xtask/generators/Cargo.toml --
//! <command>`), so that a user who only wants the demo never compiles protox, prost-build or
//! planus. This package is outside the workspace (its own lock file), so `cargo test --workspace`
//! does not compile it either; `.ci/run` runs its tests.
//!
//! - `cargo xtask codegen` regenerates every committed `crates/<crate>/src/generated/` module
//!   from the schemas in `proto/`; `--check` regenerates in memory and fails, naming each stale
//!   file, when the committed code differs.
//! - `cargo xtask tf-releases` dumps the ops and version constants of ten real TensorFlow
//!   releases into `crates/graphdef-versions/releases/` (codegen turns them into tables).
//! - `cargo xtask se-abi-releases` dumps the StreamExecutor C API layouts of TensorFlow 2.5 ...
//!   2.21 and the libraries and C symbols of 2.12 ... 2.21 from their real wheels into
//!   `crates/se-abi/releases/` (codegen turns them into se-abi's declarations).
//! - `cargo xtask pjrt-releases` dumps XLA's PJRT C API layouts from the `pjrt_c_api.h` that
//!   TensorFlow 2.14 ... 2.21's wheels ship into `crates/se-abi/releases/pjrt/` (codegen turns
//!   them into se-abi's `pjrt` declarations).
//! - `cargo xtask tflite-runtimes` probes thirty real TensorFlow Lite runtimes (their op
//!   registrations, the tensor types they accept, their refusals' words) into
//!   `crates/tflite-opver/runtimes/` (codegen turns them into tables).
//! - `cargo xtask ifrt-jaxlib-releases` runs every jaxlib release's real IFRT Proxy client (0.4.31
//!   ... the newest on PyPI) against a fake proxy server and records what its `GetVersion`
//!   request offers and at which IFRT SerDes versions its `jit` still sends a program, into
//!   `crates/ifrt-serdes/releases/` (codegen turns them into the crate's `JAXLIB_CLIENTS`).
//! - `cargo xtask abi-check` compares se-abi's declared `struct_size`-versioned structs with their
//!   committed layout snapshots and fails, naming the struct and the member, on any change other
//!   than appending members or deprecating one; `--bless` records the declarations.

mod abi_check;
mod codegen;
mod generated;
mod gz;
mod ifrt_jaxlib_releases;
mod pjrt_releases;
mod se_abi_releases;
mod tf_releases;
mod tflite_runtimes;
mod venv;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "Workspace automation for the compat-versioning crates: code generation and \
             TensorFlow facts (`cargo xtask demo` runs the tours)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Regenerate `crates/*/src/generated/` from `proto/` (pure Rust: protox, prost-build, planus).
    Codegen {
        /// Do not write anything: fail, naming every stale file, if committed code is not fresh.
        #[arg(long)]
        check: bool,
    },
    /// Dump TensorFlow releases' registered ops and version constants from their real wheels
    /// into crates/graphdef-versions/releases/ (installs each wheel in a scratch venv).
    TfReleases {
        /// Where the venvs go (`tf-<release>` each; one that already imports tensorflow is reused).
        #[arg(long, default_value = "target/tf-releases-venvs")]
        venvs: PathBuf,
        /// Only these releases (default: all ten).
        #[arg(long = "release", value_name = "RELEASE")]
        releases: Vec<String>,
    },
    /// Dump TensorFlow 2.5 ... 2.21's StreamExecutor C API layouts (compiled against each
    /// wheel's headers) and 2.12 ... 2.21's libraries and C symbols into crates/se-abi/releases/.
    SeAbiReleases {
        /// Where the venvs of 2.12 ... 2.21 are (`tf-<release>` each; made if missing).
        #[arg(long, default_value = "target/tf-releases-venvs")]
        venvs: PathBuf,
        /// Where the wheels of 2.5 ... 2.11 are (downloaded there if missing).
        #[arg(long, default_value = "target/se-abi-wheels")]
        wheels: PathBuf,
        /// Only these releases (default: all).
        #[arg(long = "release", value_name = "RELEASE")]
        releases: Vec<String>,
    },
    /// Dump XLA's PJRT C API layouts from the `pjrt_c_api.h` of TensorFlow 2.14 ... 2.21's
    /// wheels (compiled against with gcc) into crates/se-abi/releases/pjrt/.
    PjrtReleases {
        /// Where the venvs of 2.14 ... 2.21 are (`tf-<release>` each; made if missing).
        #[arg(long, default_value = "target/tf-releases-venvs")]
        venvs: PathBuf,
    },
    /// Probe TensorFlow Lite runtimes (tensorflow-cpu, tflite-runtime, ai-edge-litert) from their
    /// real wheels into crates/tflite-opver/runtimes/ (installs each wheel in a scratch venv).
    TfliteRuntimes {
        /// Where the venvs go (`tf-<release>` for tensorflow-cpu, shared with tf-releases;
        /// `tflite-<dist>-<version>` for the others; one with that version is reused).
        #[arg(long, default_value = "target/tf-releases-venvs")]
        venvs: PathBuf,
        /// Only these runtimes, named as `ai-edge-litert 2.3.0` (default: all thirty).
        #[arg(long = "runtime", value_name = "NAME")]
        runtimes: Vec<String>,
        /// Probe only one part: `allocation` (custom and Flex ops at `allocate_tensors`, merged
        /// into the committed facts, keeping the rest as probed before) or `kernels` (one-operator
        /// models run on every runtime and compared with the newest, into `kernels.json.gz`).
        #[arg(long, value_name = "PART", value_parser = ["allocation", "kernels"])]
        part: Option<String>,
    },
    /// Run every jaxlib release's real IFRT Proxy client against a fake proxy server and record
    /// what it offers in GetVersion and where its jit works, into crates/ifrt-serdes/releases/
    /// (installs each release from PyPI in a scratch venv, deleted after it is measured).
    IfrtJaxlibReleases {
        /// The scratch folder (the server's venv, each release's venv while it is measured, logs).
        #[arg(long, default_value = "target/ifrt-jaxlib-work")]
        work: PathBuf,
        /// Only these releases, e.g. `0.10.2` (default: all).
        #[arg(long = "release", value_name = "RELEASE")]
        releases: Vec<String>,
        /// The CPython 3.11 interpreter (releases up to 0.10.x).
        #[arg(long, default_value = "python3.11")]
        python311: String,
        /// The CPython 3.12 interpreter (releases 0.11 and later have no 3.11 wheels).
        #[arg(long, default_value = "python3.12")]
        python312: String,
    },
    /// Compare se-abi's declared structs with their layout snapshots (`crates/se-abi/abi/`).
    AbiCheck {
        /// Record the declarations as the new snapshots (an intended change) instead of failing.
        #[arg(long)]
        bless: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = workspace_root();
    let result = match cli.command {
        Command::Codegen { check } => {
            let mode = if check {
                codegen::Mode::Check
            } else {
                codegen::Mode::Write
            };
            codegen::run(&root, mode)
        }
        Command::TfReleases { venvs, releases } => {
            tf_releases::dump(&root, &root.join(venvs), &releases)
        }
        Command::SeAbiReleases {
            venvs,
            wheels,
            releases,
        } => se_abi_releases::dump(&root, &root.join(venvs), &root.join(wheels), &releases),
        Command::PjrtReleases { venvs } => pjrt_releases::dump(&root, &root.join(venvs)),
        Command::TfliteRuntimes {
            venvs,
            runtimes,
            part,
        } => tflite_runtimes::probe(&root, &root.join(venvs), &runtimes, part.as_deref()),
        Command::IfrtJaxlibReleases {
            work,
            releases,
            python311,
            python312,
        } => ifrt_jaxlib_releases::measure(
            &root,
            &root.join(work),
            &releases,
            &ifrt_jaxlib_releases::Interpreters {
                python311,
                python312,
            },
        ),
        Command::AbiCheck { bless } => {
            let mode = if bless {
                abi_check::Mode::Bless
            } else {
                abi_check::Mode::Check
            };
            abi_check::run(&root, mode)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: two levels above this package's manifest directory (`xtask/generators/`).
///
/// Cargo sets `CARGO_MANIFEST_DIR` when it runs the binary (`cargo xtask` ends in `cargo run`);
/// that is the checkout being worked on. The path compiled in is only a fallback: a binary built
/// by another checkout sharing the target directory (CI's fresh clone does) would point there.
fn workspace_root() -> PathBuf {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest_dir
        .ancestors()
        .nth(2)
        .expect("xtask-generators lives two levels below the workspace root")
        .to_path_buf()
}
