//! Which TensorFlow releases load a PluggableDevice plugin, and why the others refuse it
//! (feature `plugin-check`; needs `std`).
//!
//! The rest of the crate is `no_std`: it runs inside hosts and plugins. This module reads files
//! and, when asked, runs a plugin in an emulated host, so it lives behind its own feature, with
//! the crate's one `std` dependency on a reader of ELF files (`object`), and the one on a
//! loader (`libloading`) for the emulated host. The `se-abi plugin-check` tool (feature `cli`)
//! is a thin layer over it.
//!
//! ```no_run
//! use se_abi::plugin::Plugin;
//!
//! let plugin = Plugin::open("libmy_plugin.so".as_ref())?;
//! for verdict in plugin.verdicts() {
//!     match (verdict.loads(), verdict.refusals.first()) {
//!         (Some(false), Some(why)) => println!("TensorFlow {} refuses it: {}", verdict.release, why.message()),
//!         (_, _) => println!("TensorFlow {}: {:?}", verdict.release, verdict.unknown),
//!     }
//! }
//! # Ok::<(), se_abi::Error>(())
//! ```
//!
//! The modules, in the order a load goes:
//! - `elf`: a library's loading facts, read as the dynamic loader reads them ([`ElfInfo`]);
//! - `exports`: every symbol the releases' libraries export, C++ included;
//! - `loader`: `dlopen` replayed from the files, in one release;
//! - `check`: the verdicts ([`Plugin`], [`Verdict`], [`Refusal`]);
//! - `host`: the emulated host that runs `SE_InitPlugin` against a release's checks
//!   ([`emulate`]), and [`status`], the `TF_Status` it hands the plugin.

mod check;
mod elf;
mod exports;
mod host;
mod loader;
pub mod status;

pub use check::{Devices, ENTRY_POINTS, Plugin, Refusal, Verdict};
pub use elf::{ElfInfo, Export, Import, SymbolVersion, VersionNeed};
pub use host::{HostOutcome, Step, abort_text, emulate};
