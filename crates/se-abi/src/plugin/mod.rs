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
//!     match verdict.refusals.first() {
//!         None => println!("TensorFlow {} loads it", verdict.release),
//!         Some(why) => println!("TensorFlow {} refuses it: {}", verdict.release, why.message()),
//!     }
//! }
//! # Ok::<(), se_abi::Error>(())
//! ```
//!
//! What decides, from the plugin's files alone, is described in [`Plugin`]'s module below
//! (`check`); what it cannot know is in the crate's README. [`emulate`] runs the plugin's
//! `SE_InitPlugin` against one release's struct sizes and validation, in this process.

mod check;
mod elf;
mod host;

pub use check::{ENTRY_POINTS, Plugin, Refusal, Verdict, is_c_api};
pub use elf::{ElfInfo, Export, Import, SymbolVersion, VersionNeed};
pub use host::{HostOutcome, emulate};
