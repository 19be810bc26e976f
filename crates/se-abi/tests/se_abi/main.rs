//! se-abi's integration tests, in one test binary (one link instead of one per file):
//!
//! - `layout`: the worked example's numbers, the member tables, the size at every version;
//! - `copy`: versioned copies, views and fills against an independent model of the rules;
//! - `matrix`: C and Rust hosts x plugins of every header version through `dlopen`, the plugin
//!   allocating the struct and the host allocating it (valgrind runs `matrix::` and `copy::` in
//!   `.ci/run`);
//! - `oracle`: TensorFlow's real layouts, release by release;
//! - `elf`: plugins read as the dynamic loader reads them;
//! - `cli`: the `se-abi` tool's input handling, output and exit codes;
//! - `verdicts`: `se-abi plugin-check` against real TensorFlow loading real plugins (the
//!   example's builds, Intel's, Microsoft's);
//! - `probes`: the same, for probe plugins that each break one thing;
//! - `pjrt`: `se-abi pjrt-check` against real JAX releases loading PJRT probe plugins.
//!
//! The layout lock's compile errors, pinned by their messages, are the `se-abi-ui` package
//! (`crates/se-abi/ui/`): trybuild builds them with se-abi alone, not with these tests'
//! dev-dependencies.

mod common;

// The tool's tests need its binary: `cargo test` builds it (the crate's self dev-dependency
// turns `cli` on); a packaged copy of the crate, which has no such dev-dependency, runs them with
// `cargo test --features cli`.
#[cfg(feature = "cli")]
mod cli;
mod copy;
#[cfg(feature = "cli")]
mod elf;
mod layout;
mod matrix;
mod oracle;
#[cfg(feature = "cli")]
mod pjrt;
#[cfg(feature = "cli")]
mod probes;

#[cfg(feature = "cli")]
mod verdicts;
