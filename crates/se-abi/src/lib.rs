//! C-ABI structs versioned by `struct_size`, as in TensorFlow's StreamExecutor C API.
//!
//! A host and a plugin compiled against *different versions* of one C header exchange
//! `#[repr(C)]` structs. Each struct starts with `size_t struct_size`, which the producer sets to
//! the size of the struct *it* was compiled with, and a reserved `void* next` (always zero).
//! The rules (TensorFlow's `C_API_versioning_strategy.md` RFC, `tensorflow/community`):
//!
//! - **The size constant is the end of the last member** (`offsetof + sizeof`, trailing padding
//!   excluded): TF's `SP_Platform` is 40 bytes but its `SP_PLATFORM_STRUCT_SIZE` is 35.
//! - **Members are only appended.** Never removed, reordered, renamed or re-typed: renaming or
//!   changing a type is a deprecation plus a new member. Maximum alignment is 8 bytes.
//! - **A reader touches a member only if the producer's struct reaches it**:
//!   `struct_size > offsetof(member)`. An older producer's missing members are not read; a newer
//!   producer's extra members are ignored.
//! - **Deprecation is in place**: the member keeps its bytes, producers stop setting it (zero),
//!   consumers stop reading it. Members where 0 / NULL means "not set" must be validated before
//!   use, so a newer producer's zeroed deprecated member is harmless to an older consumer that
//!   validates. For older consumers that read it *without* validating, a producer keeps setting
//!   it ([`Deprecated`], `set_deprecated`) until no consumer version it supports does so.
//! - **`next` is reserved** (TensorFlow names it `ext`): producers leave it NULL. A non-NULL
//!   `next` is accepted and ignored, as TensorFlow's validation does, and never relayed into a
//!   struct this side writes ([`copy_from_ptr`]).
//! - **Only `SE_MAJOR` must match** at registration
//!   ([`check_registration`]); minor differences are absorbed by `struct_size`.
//!
//! # How this crate encodes it
//!
//! [`versioned_struct!`] declares a struct once, each member tagged with the version that added it
//! (and deprecated it), its kind ([`Value`] or [`NonZero`]) and its locked byte range. From that
//! come the `#[repr(C)]` struct with private fields, its size constant and the size at every
//! version ([`Versioned`]), a zero-filling `new()`, one [`Field`] handle per live member for
//! checked reads and writes (a write-only [`Deprecated`] handle for a deprecated one), and a
//! compile-time **layout lock** that rejects a reordered, removed,
//! re-typed or over-aligned member with a message naming it.
//!
//! Foreign memory is read through [`View`], a raw pointer plus the producer's `struct_size` that
//! never forms a reference to a whole struct that may be shorter than this build's type.
//! [`copy_from_ptr`] / [`copy_from_bytes`] make an owned copy with Linux `copy_struct_from_user`
//! semantics ([`Tail`]). A producer fills the struct the other side allocated with [`fill`]
//! (or [`fill_bytes`]), which reads the other side's `struct_size` first and never writes past
//! it, or writes into memory of its own with [`write_new`] / [`write_new_bytes`]. Bad sizes are
//! typed [`Error`]s in TensorFlow's words. The crate is `no_std`.
//!
//! # Example: an old plugin, a new host, and the other way round
//!
//! ```
//! use se_abi::{Tail, copy_from_bytes, versioned_struct, write_new_bytes};
//!
//! mod v1 {
//!     se_abi::versioned_struct! {
//!         /// What the plugin was compiled with.
//!         #[abi(size = DEV_STRUCT_SIZE, sizes = [24])]
//!         pub struct Dev {
//!             ordinal: u64 = value(since 1, at 16..24),
//!         }
//!     }
//! }
//! mod v2 {
//!     se_abi::versioned_struct! {
//!         /// What the host was compiled with: one member appended.
//!         #[abi(size = DEV_STRUCT_SIZE, sizes = [24, 32])]
//!         pub struct Dev {
//!             ordinal: u64 = value(since 1, at 16..24),
//!             handle: *mut core::ffi::c_void = nonzero(since 2, at 24..32),
//!         }
//!     }
//! }
//!
//! // An old plugin writes its 24-byte struct ...
//! let mut plugin = v1::Dev::new();
//! plugin.set(v1::Dev::ordinal, 7);
//! let mut wire = [0u8; 64];
//! let n = write_new_bytes(&plugin, &mut wire)?;
//! assert_eq!(n, 24);
//!
//! // ... and a new host reads what is there, and only that.
//! let host: v2::Dev = copy_from_bytes(&wire[..n], Tail::MustBeZero)?;
//! assert_eq!(host.get(v2::Dev::ordinal), Some(7));
//! assert_eq!(host.get(v2::Dev::handle), None); // 24 does not reach offset 24: not read
//!
//! // A new plugin's extra member is ignored by an old host (TF), or refused if set (E2BIG).
//! let mut plugin = v2::Dev::new();
//! plugin.set(v2::Dev::ordinal, 8).set(v2::Dev::handle, std::ptr::without_provenance_mut(0x10));
//! let n = write_new_bytes(&plugin, &mut wire)?;
//! let host: v1::Dev = copy_from_bytes(&wire[..n], Tail::Ignore)?;
//! assert_eq!(host.get(v1::Dev::ordinal), Some(8));
//! assert!(copy_from_bytes::<v1::Dev>(&wire[..n], Tail::MustBeZero).is_err());
//! # Ok::<(), se_abi::Error>(())
//! ```
//!
//! `examples/tour.rs` walks the seed's `SE_Device` from version 1 to 5; the crate's tests run a
//! matrix of C and Rust hosts and plugins of every version through `dlopen`, under valgrind in CI.
//!
//! # The API
//!
//! Every item is at the crate root, and only there: the two macros, the [`Versioned`] trait they
//! implement with its layout facts, the member types and handles, [`View`], the copies, the
//! version numbers and the registration check, [`CType`] and [`Shape`], and [`Error`]. The
//! modules behind them are private.
//!
//! One module is public because it is a family of its own, named as TensorFlow names it:
//! [`tensorflow`], TensorFlow's StreamExecutor C API structs (`SP_Platform`, `SP_StreamExecutor`,
//! ...), declared with this crate's macro from the layouts of every release since 2.5, for
//! writing a PluggableDevice plugin in Rust (`examples/tf_plugin` is one, and TensorFlow 2.12 to
//! 2.21 load it). With the `plugin-check` feature, `plugin` judges a plugin against the releases.
//! [`pjrt`] is the same scheme in XLA's PJRT C API, the interface JAX loads hardware plugins
//! through: its structs from the real headers of PJRT 0.13 ... 0.90, and, with `plugin-check`,
//! which measured JAX releases load a PJRT plugin (`se-abi pjrt-check`).
//! One more public module, `__private`, and two helper macros, `__versioned_struct_support!` and
//! `__versioned_struct_impl!`, are hidden: the macros' expansions call them from the user's
//! crate, so they must be reachable, but they are not an API and may change in any release.
//!
//! # What is generated, and the command-line tool
//!
//! Its sibling crates in the compat-versioning workspace generate their raw types from a wire
//! schema. se-abi has no schema: a versioned struct is declared once, in Rust, with
//! [`versioned_struct!`], and at every build the layout lock checks the declaration against the
//! offsets and sizes written into it. What *is* generated (`cargo xtask codegen`) is the
//! [`tensorflow`] module's declarations, from facts: the layouts the real headers of TensorFlow
//! 2.5 ... 2.21 have (compiled against with gcc, one release at a time), and of releases 2.12 ...
//! 2.21 the libraries they load, every symbol those export, and what each release checks when it
//! loads a plugin.
//!
//! - **Breaking edits the compiler cannot see are caught by snapshots.** The layout lock sees
//!   offsets and sizes only. A renamed member, a same-size type change (even through an alias:
//!   each member records its resolved [`Shape`]) or a deprecated slot put back to use keep every
//!   byte in place, so the repository commits a snapshot of each declared struct (`abi/`), and
//!   `cargo xtask abi-check` fails on any change of it other than appending members or
//!   deprecating one. It finds every declared struct by reading the sources, and runs the same
//!   comparison over TensorFlow's own releases.
//! - **The command-line tool answers what plugin authors ask**: `se-abi plugin-check PLUGIN.so`
//!   (feature `cli`) says which TensorFlow releases load a plugin and why the others refuse it,
//!   from its ELF files and the release facts, and, when asked, by running its `SE_InitPlugin` in
//!   an emulated host of each release, in a child process. The engine is the `plugin` module
//!   (feature `plugin-check`), the one part of the crate that needs `std`: it reads files and
//!   loads libraries, while everything else runs inside hosts and plugins, `no_std`.
#![no_std]
#![warn(missing_docs)]

// `plugin` reads files and loads libraries: the one part of the crate that needs `std`.
#[cfg(feature = "plugin-check")]
extern crate std;

// The docs that `versioned_struct!` writes link to `se_abi::View` and friends, the path a user's
// crate sees; this makes the same path resolve for the structs declared in this crate
// (`tensorflow`).
extern crate self as se_abi;

// Module map, for contributors: each file under src/ and the concept it holds
// (`xtask/tests/module_maps.rs` checks that it names every file; src/generated/ and the CLI in
// src/bin/ aside).
//
// | File                | Concept |
// |---------------------|---------|
// | `lib.rs`            | the crate root: the scheme taught, the public API re-exported; this map |
// | `error.rs`          | the crate's one error type |
// | `version.rs`        | version numbers: a struct header's revision, the C API's semantic version |
// | `header.rs`         | the header every versioned struct starts with (`struct_size`, reserved bytes) |
// | `declare.rs`        | `versioned_struct!`: declare a struct once, get its layout facts and lock |
// | `macro_support.rs`  | what the macro's expansions call in the user's crate (not an API) |
// | `layout.rs`         | a struct's layout facts: member table, size at every version |
// | `member.rs`         | what a member may be, how a checked read treats zero, the typed handles |
// | `shape.rs`          | what a type is at the ABI through every alias (`Shape`, `CType`) |
// | `view.rs`           | reading a struct whose producer used another version of the header |
// | `copy.rs`           | versioned copies and fills (Linux `copy_struct_from_user` semantics) |
// | `registration.rs`   | the registration-time check of `SE_MAJOR` between plugin and host |
// | `pjrt.rs`           | XLA's PJRT C API structs and tables (`Blob` hand-written, the rest generated) |
// | `pjrt/check.rs`     | `pjrt-check`: which measured JAX releases load a PJRT plugin |
// | `tensorflow.rs`     | TensorFlow's StreamExecutor C API structs and release tables (hand-written types) |
// | `plugin/mod.rs`     | `plugin-check`: which TensorFlow releases load a PluggableDevice plugin |
// | `plugin/check.rs`   | the static check: each release's verdict from the files alone |
// | `plugin/elf.rs`     | a shared library read as the dynamic loader reads it |
// | `plugin/exports.rs` | every symbol the ten releases export, as fingerprints |
// | `plugin/loader.rs`  | glibc's `dlopen` replayed: search order, versions, relocation |
// | `plugin/host.rs`    | an emulated TensorFlow host that loads the plugin (`--run`) |
// | `plugin/status.rs`  | `TF_Status` for the emulated host |

mod copy;
mod declare;
mod error;
// `cargo xtask codegen`'s output: TensorFlow's structs from the release facts (`tensorflow`
// re-exports them).
#[rustfmt::skip]
mod generated;
mod header;
mod layout;
mod member;
pub mod pjrt;
#[cfg(feature = "plugin-check")]
pub mod plugin;
mod registration;
mod shape;
pub mod tensorflow;
mod version;
mod view;

// The expansions of `versioned_struct!` and `offset_of_end!` in the user's crate call these; not
// an API (serde names its own `__private` the same way).
#[doc(hidden)]
#[path = "macro_support.rs"]
pub mod __private;

// Declaring a versioned struct: `versioned_struct!` and `offset_of_end!` (exported at the root by
// `#[macro_export]`), the trait a declaration implements, and the layout facts it records.
pub use layout::{MAX_STRUCT_SIZE, ProducerVersion, Versioned, struct_size_at, struct_size_of};
pub use member::{Member, MemberKind};

// Members: which types may be one, how a checked read treats zero, and the typed handle on each.
pub use member::{AbiMember, Deprecated, Field, Kind, NonZero, NonZeroMember, Value};
pub use shape::{CType, Shape};

// Reading a foreign producer's struct in place, and copying or writing whole structs.
pub use copy::{
    CopyOptions, DeprecatedMembers, Tail, copy_from_bytes, copy_from_ptr, fill, fill_bytes,
    write_new, write_new_bytes,
};
pub use view::View;

// Version numbers: a struct header's revision, and the C API's `SE_MAJOR.SE_MINOR.SE_PATCH`
// compared at registration.
pub use registration::{Agreement, check_registration};
pub use version::{ApiVersion, Major, Minor, Patch, Version};

// The crate's one error type.
pub use error::Error;

// The README's example is compiled and run as a doctest, so that it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
